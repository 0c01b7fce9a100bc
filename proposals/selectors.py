"""Every non-trivial read. Functions take keyword-only arguments and are query-aware."""

import datetime

from django.conf import settings
from django.contrib.auth import get_user_model
from django.db import connection
from django.db.models import Count, F, OuterRef, Prefetch, Q, QuerySet, Subquery
from django.utils import timezone

from proposals import domain, localization, reference_data
from proposals.assess import CHILDREN, with_children
from proposals.domain import response_times, workflow
from proposals.domain.fields import (
    anchor_name,
    describe_path,
    describe_row_named,
    row_path_at,
)
from proposals.domain.numbers import (
    NUMBER_FORMAT_BY_NAME,
    NumberFormat,
    format_for_languages,
)
from proposals.domain.sections import TABLE_BY_KIND
from proposals.models import (
    AccountProfile,
    PendingImport,
    Proposal,
    ProposalRevision,
    ReviewComment,
    ReviewState,
    ReviewVisit,
    StatusChange,
    TechnicalAssessment,
)


def proposal_list_for_owner(*, user, archived: bool = False) -> QuerySet[Proposal]:
    """The user's own proposals, newest change first, with the target system joined:
    the current ones, or with ``archived`` the archived ones (never deleted ones)."""
    return Proposal.objects.filter(
        owner=user, deleted_at__isnull=True, archived_at__isnull=not archived
    ).select_related("system")


def proposal_with_children(queryset: QuerySet[Proposal]) -> QuerySet[Proposal]:
    """Attach the system and every repeatable entry in a fixed number of queries."""
    return with_children(queryset).select_related("owner")


def proposal_get_for_owner(*, user, pk: int, children: bool = True) -> Proposal | None:
    """The proposal if ``user`` owns it (and has not deleted it), else ``None``
    (views answer 404 for anybody else, never 403)."""
    queryset = Proposal.objects.filter(owner=user, deleted_at__isnull=True)
    if children:
        queryset = proposal_with_children(queryset)
    return queryset.filter(pk=pk).first()


def proposal_get_for_editing(*, user, pk: int, lock: bool = False) -> Proposal | None:
    """``proposal_get_for_owner`` in two queries, for the wizard's every keystroke:
    the proposal (with its owner's number format, ``owner_number_format``), then
    every row of its four tables at once (:func:`_attach_children`). Its owner is
    ``user`` and its system comes from the catalogue kept in process, so neither is
    read again. With ``lock`` (inside a transaction) the proposal's row is locked
    for update, so what is read is what a save in the same transaction compares
    with."""
    queryset = Proposal.objects.filter(
        owner=user, deleted_at__isnull=True, pk=pk
    ).annotate(
        owner_number_format=F("owner__preferences__number_format"),
        owner_time_zone=F("owner__preferences__time_zone"),
    )
    if lock:
        queryset = queryset.select_for_update(of=("self",))
    proposal = queryset.first()
    if proposal is None:
        return None
    proposal.owner = user
    if proposal.system_id is not None:
        system = reference_data.cached_clusters().get(str(proposal.system_id))
        if system is not None:  # else read when first used
            Proposal._meta.get_field("system").set_cached_value(proposal, system)
    _attach_children(proposal)
    return proposal


def _child_models():
    return [(kind, Proposal._meta.get_field(kind).related_model) for kind in CHILDREN]


def _attach_children(proposal: Proposal) -> None:
    """Read the rows of every table of ``proposal`` in one ``UNION ALL`` query and
    attach them as ``prefetch_related`` would (``proposal.jobs.all()`` then asks
    nothing more). Each table's columns have their own places in the union, typed
    (``CAST(NULL AS ...)``) where the row belongs to another table."""
    models, sql, layout = _children_query()
    with connection.cursor() as cursor:
        cursor.execute(sql, [proposal.pk] * len(models))
        fetched = cursor.fetchall()
    rows: dict[str, list] = {kind: [] for kind, _ in models}
    for record in fetched:
        kind, model = models[record[0]]
        first, names, converters = layout[record[0]]
        values = list(record[first : first + len(names)])
        for index, expression, field_converters in converters:
            for converter in field_converters:
                values[index] = converter(values[index], expression, connection)
        row = model.from_db(connection.alias, names, values)
        model._meta.get_field("proposal").set_cached_value(row, proposal)
        rows[kind].append(row)
    cache = getattr(proposal, "_prefetched_objects_cache", None)
    if cache is None:
        cache = proposal._prefetched_objects_cache = {}
    for kind, _model in models:
        ordered = sorted(rows[kind], key=lambda row: (row.position, row.pk))
        queryset = getattr(proposal, kind).get_queryset()
        queryset._result_cache = ordered
        queryset._prefetch_done = True
        cache[kind] = queryset


_CHILDREN_QUERIES: dict[str, tuple] = {}


def _children_query():
    """``(models, sql, layout)`` for the database in use, built once: ``layout``
    gives, per table, where its columns start in a result row, their attribute
    names and the converters of the columns that have any."""
    vendor = connection.vendor
    if vendor in _CHILDREN_QUERIES:
        return _CHILDREN_QUERIES[vendor]
    models = _child_models()
    slots = [(kind, f) for kind, model in models for f in model._meta.concrete_fields]
    quote = connection.ops.quote_name
    branches = []
    for index, (kind, model) in enumerate(models):
        columns = [str(index)] + [
            quote(f.column)
            if slot_kind == kind
            else f"CAST(NULL AS {f.cast_db_type(connection)})"
            for slot_kind, f in slots
        ]
        branches.append(
            f"SELECT {', '.join(columns)} FROM {quote(model._meta.db_table)}"
            f" WHERE {quote('proposal_id')} = %s"
        )
    layout = []
    start = 1
    for _kind, model in models:
        fields = model._meta.concrete_fields
        converters = []
        for index, field in enumerate(fields):
            expression = field.get_col(model._meta.db_table)
            found = connection.ops.get_db_converters(
                expression
            ) + field.get_db_converters(connection)
            if found:
                converters.append((index, expression, found))
        layout.append((start, [f.attname for f in fields], converters))
        start += len(fields)
    built = (models, " UNION ALL ".join(branches), layout)
    _CHILDREN_QUERIES[vendor] = built
    return built


def proposal_owned_exists(*, user, pk: int) -> bool:
    """Whether ``user`` owns proposal ``pk`` (and has not deleted it): one query."""
    return Proposal.objects.filter(owner=user, pk=pk, deleted_at__isnull=True).exists()


def number_format_of(proposal, *, languages=()) -> NumberFormat:
    """How the owner of a proposal read by ``proposal_get_for_editing`` writes
    numbers (no query): their setting, else their browser's ``languages``."""
    name = getattr(proposal, "owner_number_format", None)
    if name in NUMBER_FORMAT_BY_NAME:
        return NUMBER_FORMAT_BY_NAME[name]
    return format_for_languages(languages)


def pending_import_document(
    *, user, proposal: Proposal, token: str
) -> domain.Proposal | None:
    """The checked file kept under ``token`` for ``user`` and ``proposal``, parsed,
    or ``None`` when there is none (expired ones included)."""
    pending = PendingImport.objects.filter(
        token=token, owner=user, proposal=proposal
    ).first()
    if pending is None or pending.expired:
        return None
    return domain.parse(pending.document)


# --------------------------------------------------------------------------------------
# Staff review
# --------------------------------------------------------------------------------------

STAFF_GROUP = "Support staff"
QUEUE_ORDERS = {"waiting": ("submitted_at", "pk"), "recent": ("-submitted_at", "-pk")}
QUEUE_PAGE_SIZE = 25


def user_is_support_staff(*, user) -> bool:
    """Whether ``user`` belongs to the support staff group; one query per user
    object (the answer is kept on it, so a request asks once)."""
    if user is None or not user.is_authenticated:
        return False
    cached = getattr(user, "_is_support_staff", None)
    if cached is None:
        cached = user.groups.filter(name=STAFF_GROUP).exists()
        user._is_support_staff = cached
    return cached


# Which part of the queue to show: who owes the next step, or how it ended.
QUEUE_SHOW = {
    "us": workflow.WAITING_FOR_STAFF,
    "applicant": workflow.WAITING_FOR_APPLICANT,
    "open": workflow.UNDER_REVIEW,
    "ended": workflow.TERMINAL,
    "all": (),
}


def queue_late_since(*, today) -> dict[tuple[str, str], datetime.date]:
    """``{(family, tier): day}``: a proposal of that call mode waiting for the
    staff since that day or earlier is late today (working days, the desk's
    holidays skipped)."""
    return {
        mode: response_times.late_if_sent_by(
            today=today, typical=days, country=settings.HOLIDAY_COUNTRY
        )
        for mode, days in response_times.typical_days_by_mode(
            reference_data.cached_terms()
        ).items()
    }


def _late(today) -> Q:
    """Waiting for the staff for longer than the call mode's typical answer time."""
    late = Q(pk__in=[])
    zone = timezone.get_current_timezone()
    for (family, tier), day in queue_late_since(today=today).items():
        next_day = datetime.datetime.combine(day + response_times.DAY, datetime.time())
        mode = Q(proposal__call_family=family)
        if tier:
            mode &= Q(latest_revision__tier=tier)
        late |= mode & Q(submitted_at__lt=timezone.make_aware(next_day, zone))
    return late & Q(proposal__status__in=workflow.WAITING_FOR_STAFF)


def review_queue(
    *,
    statuses=(),
    show: str = "",
    late: bool = False,
    tier: str = "",
    system: str = "",
    has_errors: bool | None = None,
    search: str = "",
    order: str = "waiting",
    handler: str = "",
    user=None,
    today=None,
):
    """Proposals sent for review at least once, with their latest revision's
    summary (tier, system, GPU-hours, finding counts), their handler and when the
    handler last opened the review (``handler_opened_at``) joined in: one query
    for a page whatever its length, plus the paginator's count.

    ``show`` picks who owes the next step or how it ended (``QUEUE_SHOW``; blank:
    every status), ``statuses`` narrows to several statuses at once, ``late`` to
    proposals waiting for the staff beyond their call's typical answer time.
    ``handler`` is ``"mine"`` (handled by ``user``), ``"nobody"`` or blank (any)."""
    queryset = (
        ReviewState.objects.select_related(
            "proposal",
            "proposal__owner",
            "latest_revision",
            "latest_revision__system",
            "handled_by",
        )
        .defer("latest_revision__snapshot", "latest_revision__findings")
        .annotate(
            handler_opened_at=Subquery(
                ReviewVisit.objects.filter(
                    proposal=OuterRef("proposal"), user=OuterRef("handled_by")
                ).values("opened_at")[:1]
            )
        )
    )
    if QUEUE_SHOW.get(show):
        queryset = queryset.filter(proposal__status__in=QUEUE_SHOW[show])
    if statuses:
        queryset = queryset.filter(proposal__status__in=list(statuses))
    if late:
        queryset = queryset.filter(_late(today or timezone.localdate()))
    if handler == "mine" and user is not None:
        queryset = queryset.filter(handled_by=user)
    elif handler == "nobody":
        queryset = queryset.filter(handled_by__isnull=True)
    if tier:
        queryset = queryset.filter(latest_revision__tier=tier)
    if system:
        queryset = queryset.filter(latest_revision__system__slug=system)
    if has_errors is True:
        queryset = queryset.filter(latest_revision__error_count__gt=0)
    elif has_errors is False:
        queryset = queryset.filter(latest_revision__error_count=0)
    search = search.strip()
    if search:
        queryset = queryset.filter(
            Q(proposal__title__icontains=search)
            | Q(proposal__organisation_name__icontains=search)
        )
    return queryset.order_by(*QUEUE_ORDERS.get(order, QUEUE_ORDERS["waiting"]))


def review_conflict(*, user, proposal: Proposal) -> str:
    """Why ``user`` may not decide on (or handle) ``proposal``: it is their own
    (conflict of interest); blank when nothing stands in the way. The proposal
    has one owner, with no co-owners, so owning it is the conflict."""
    if user is not None and proposal.owner_id == user.pk:
        return (
            "This is your own proposal: a colleague must review and decide on it "
            "(conflict of interest)."
        )
    return ""


def review_stale_status(*, proposal: Proposal, seen_status: str) -> str:
    """When ``proposal`` (its status read under the caller's lock) no longer has
    the status a staff member saw: who changed it from what to what, and when.
    Blank when it has not changed (or nothing was seen)."""
    if not seen_status or proposal.status == seen_status:
        return ""
    last = (
        StatusChange.objects.filter(proposal=proposal)
        .select_related("by")
        .order_by("-at", "-id")
        .first()
    )
    labels = dict(Proposal.Status.choices)
    who, when = "Somebody", ""
    if last is not None:
        if last.by is not None:
            who = last.by.get_full_name() or last.by.get_username()
        # In the reader's zone, with its name, as the pages print times.
        when = f" on {localization.when(last.at)}"
    return (
        f"{who} changed the status from \u201c{labels.get(seen_status, seen_status)}"
        f"\u201d to \u201c{labels.get(proposal.status)}\u201d{when}, after this page "
        "was shown. Nothing was changed: look at the proposal again, then decide."
    )


def staff_members():
    """The active support staff, by user name (to hand a proposal over)."""
    return (
        get_user_model()
        .objects.filter(groups__name=STAFF_GROUP, is_active=True)
        .order_by("username")
    )


def review_get_for_staff(*, user, pk: int) -> Proposal | None:
    """A proposal for the staff review pages; ``None`` unless ``user`` is support
    staff and the proposal was sent for review at least once."""
    if not user_is_support_staff(user=user):
        return None
    queryset = proposal_with_children(
        Proposal.objects.filter(review_state__isnull=False)
    ).select_related("review_state__latest_revision", "review_state__handled_by")
    return queryset.filter(pk=pk).first()


def proposal_get_for_reader(*, user, pk: int) -> tuple[Proposal | None, bool]:
    """The proposal for read-only pages (the exports): the owner's own, or for
    support staff any proposal sent for review at least once. Returns
    ``(proposal, read_as_staff)``; ``(None, False)`` for anybody else."""
    proposal = proposal_get_for_owner(user=user, pk=pk)
    if proposal is not None:
        return proposal, False
    if not user_is_support_staff(user=user):
        return None, False
    queryset = proposal_with_children(
        Proposal.objects.filter(review_state__isnull=False)
    )
    return queryset.filter(pk=pk).first(), True


def review_revisions(*, proposal: Proposal):
    """The proposal's revisions, oldest first, without their snapshots."""
    return (
        ProposalRevision.objects.filter(proposal=proposal)
        .select_related("created_by", "system")
        .defer("snapshot", "findings")
        .order_by("number")
    )


def review_revision(*, proposal: Proposal, number: int) -> ProposalRevision | None:
    """One revision of the proposal, with its snapshot (``None`` if there is none)."""
    return (
        ProposalRevision.objects.select_related("system")
        .filter(proposal=proposal, number=number)
        .first()
    )


def review_status_changes(*, proposal: Proposal):
    """The audit trail of the proposal's status, oldest first."""
    return (
        StatusChange.objects.filter(proposal=proposal)
        .select_related("by", "revision")
        .defer("revision__snapshot", "revision__findings")
    )


def review_comment_threads(
    *, proposal: Proposal, include_staff_only: bool, section: str = ""
) -> list[dict]:
    """Comments of the proposal as threads grouped by section, in the portal's
    order: ``[{"key", "title", "threads": [comment, ...]}]`` where each comment has
    ``thread_replies``. One query. Internal notes (and replies to them) are left out
    unless ``include_staff_only``."""
    comments = ReviewComment.objects.filter(proposal=proposal).select_related("author")
    if not include_staff_only:
        comments = comments.filter(staff_only=False)
    if section:
        comments = comments.filter(section=section)
    threads: dict[int, ReviewComment] = {}
    by_section: dict[str, list] = {key: [] for key in ReviewComment.Section.values}
    replies = []
    for comment in comments.order_by("created_at", "id"):
        if comment.parent_id is None:
            comment.thread_replies = []
            threads[comment.pk] = comment
            by_section[comment.section].append(comment)
        else:
            replies.append(comment)
    for reply in replies:
        if reply.parent_id in threads:
            threads[reply.parent_id].thread_replies.append(reply)
    _resolve_row_anchors(proposal, [*threads.values(), *replies])
    return [
        {"key": key, "title": title, "threads": by_section[key]}
        for key, title in ReviewComment.Section.choices
        if not section or key == section
    ]


def _resolve_row_anchors(proposal: Proposal, comments) -> None:
    """Give each comment on a table row ``anchor_field`` (its path at the row's
    place now) and ``anchor_label`` (the row's place and name now, or its label as
    it was, marked deleted): one query per table commented on."""
    anchored = [c for c in comments if c.row_id]
    kinds = {anchor_name(c.field)[1] for c in anchored} - {""}
    current = {}
    for kind in kinds:
        name_field = TABLE_BY_KIND[kind].name_field
        model = Proposal._meta.get_field(kind).related_model
        rows = list(
            model.objects.filter(proposal=proposal)
            .order_by("position", "id")
            .values_list("pk", name_field or "pk")
        )
        current[kind] = (
            {pk: index for index, (pk, _) in enumerate(rows)},
            {kind: [str(name) if name_field else "" for _, name in rows]},
        )
    for comment in anchored:
        kind = anchor_name(comment.field)[1]
        places, names = current.get(kind, ({}, {}))
        if comment.row_id in places:
            comment.anchor_field = row_path_at(comment.field, places[comment.row_id])
            comment.anchor_label = describe_path(comment.anchor_field, names)
        else:
            comment.anchor_field = ""
            comment.anchor_label = describe_row_named(
                comment.field, comment.row_label, deleted=True
            )


def review_comment_for(*, proposal: Proposal, pk, include_staff_only: bool):
    """A comment of this proposal that the reader may see, or ``None``."""
    if not pk:
        return None
    comments = ReviewComment.objects.filter(proposal=proposal)
    if not include_staff_only:
        comments = comments.filter(staff_only=False)
    return comments.filter(pk=pk).first()


# --------------------------------------------------------------------------------------
# Accounts
# --------------------------------------------------------------------------------------


def account_data_proposals(*, user) -> QuerySet[Proposal]:
    """Every proposal ``user`` owns, for the export of their data: archived ones, and
    deleted ones that the staff keep too; with their rows, revisions (snapshots
    included), status changes and the comments the applicant may read. A fixed number
    of queries, however many proposals."""
    return (
        with_children(Proposal.objects.filter(owner=user))
        .prefetch_related(
            Prefetch(
                "revisions",
                queryset=ProposalRevision.objects.order_by("number").only(
                    "proposal_id", "number", "snapshot", "created_at"
                ),
            ),
            Prefetch("status_changes", queryset=StatusChange.objects.order_by("at")),
            Prefetch(
                "review_comments",
                queryset=ReviewComment.objects.filter(staff_only=False).order_by(
                    "created_at", "id"
                ),
            ),
        )
        .order_by("pk")
    )


def account_proposal_counts(*, user) -> dict[str, int]:
    """How many of ``user``'s proposals deleting the account removes (``drafts``:
    never sent for review) and keeps for the staff (``sent``), in one query."""
    return Proposal.objects.filter(owner=user).aggregate(
        drafts=Count("pk", filter=Q(review_state__isnull=True)),
        sent=Count("pk", filter=Q(review_state__isnull=False)),
    )


def account_is_verified(*, user) -> bool:
    """Whether the owner of ``user.email`` confirmed it (and it has not changed
    since)."""
    if not getattr(user, "is_authenticated", False) or not user.email:
        return False
    return AccountProfile.objects.filter(
        user=user, email=user.email.lower(), verified_at__isnull=False
    ).exists()


def account_address_in_use(*, address: str) -> bool:
    """Whether any account holds ``address`` (case-insensitively)."""
    return (
        get_user_model().objects.filter(email__iexact=address).exists()
        or AccountProfile.objects.filter(email=address.lower()).exists()
    )


def verified_addresses(*, addresses) -> set[str]:
    """Those of ``addresses`` that belong to an active account whose owner confirmed
    them (compared in lower case)."""
    wanted = {address.lower() for address in addresses if address}
    if not wanted:
        return set()
    rows = AccountProfile.objects.filter(
        email__in=wanted, verified_at__isnull=False, user__is_active=True
    ).values_list("email", "user__email")
    # Verified only while the account still has the address that was confirmed.
    found = {email for email, current in rows if current.lower() == email}
    return {address for address in addresses if address and address.lower() in found}


def review_assessments(*, proposal: Proposal) -> dict[int, TechnicalAssessment]:
    """The newest technical assessment of each assessed revision, by revision
    number (one query)."""
    latest: dict[int, TechnicalAssessment] = {}
    rows = (
        TechnicalAssessment.objects.filter(proposal=proposal)
        .select_related("revision", "by")
        .defer("revision__snapshot", "revision__findings")
        .order_by("at", "id")
    )
    for assessment in rows:
        latest[assessment.revision.number] = assessment
    return latest


def review_open_comments_by_step(*, proposal: Proposal) -> dict[str, int]:
    """Staff comments waiting for the applicant, by wizard step: threads the staff
    started (not internal notes) whose last message is the staff's. The general
    section counts on the wizard's last step ("review"). One query."""
    comments = (
        ReviewComment.objects.filter(proposal=proposal, staff_only=False)
        .order_by("created_at", "id")
        .values_list("pk", "parent_id", "section", "by_staff")
    )
    threads: dict[int, list] = {}
    for pk, parent, section, by_staff in comments:
        if parent is None:
            threads[pk] = [section, by_staff, by_staff]  # section, started, last
        elif parent in threads:
            threads[parent][2] = by_staff
    counts: dict[str, int] = {}
    for section, started_by_staff, last_by_staff in threads.values():
        if started_by_staff and last_by_staff:
            step = "review" if section == ReviewComment.Section.GENERAL else section
            counts[step] = counts.get(step, 0) + 1
    return counts
