"""Background tasks (django-tasks), run by ``manage.py db_worker``."""

from django_tasks import task

from proposals import services


@task()
def deliver_mail(mail_id: int) -> str:
    """Send one stored e-mail; see ``services.mail_deliver``."""
    return services.mail_deliver(mail_id=mail_id)
