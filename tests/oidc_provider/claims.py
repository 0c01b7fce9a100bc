"""What the test provider says about a person: their address, whether it is
verified (membership of the group ``email-verified``), their username and name."""

from oauth2_provider.oauth2_validators import OAuth2Validator

VERIFIED_GROUP = "email-verified"


class Claims(OAuth2Validator):
    def get_additional_claims(self, request):
        user = request.user
        return {
            "email": user.email,
            "email_verified": user.groups.filter(name=VERIFIED_GROUP).exists(),
            "preferred_username": user.username,
            "given_name": user.first_name,
            "family_name": user.last_name,
            "name": user.get_full_name(),
        }
