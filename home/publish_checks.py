"""The checks a page passes before it goes live, on the admin paths that publish without the editor.

The page editor validates its whole form before it publishes, schedules, submits or approves:
the model's fields, and each page type's own rules (for articles the publish gates,
``blog.forms``). Three admin paths make content live with no form, and Wagtail checks nothing
there: a draft saved incomplete (drafts may be: Wagtail defers required fields for them) went
live as it was or, where the model refuses it (``Page.save`` runs ``full_clean`` before a page
goes live), raised ``ValidationError``: a 500 (docs/upstream.md, "Wagtail: publishing without
the editor validates nothing"). Each path now checks what it would publish first and, if any
page fails, publishes nothing and names each page with what to fix:

- the page listing's bulk **Publish**, with its "include descendants": the ``before_bulk_action``
  hook in ``home/wagtail_hooks.py`` (``bulk_publish_failures``);
- **Publish copies** in the copy form: the ``before_copy_page`` hook there (``copy_failures``);
- **Approve** in Wagtail's workflow action view (the dashboard's "Awaiting your review", the
  page header's workflow menu), which publishes the page's latest revision:
  ``ApprovalChecksMiddleware``. The same view approves snippets with a workflow (authors), whose
  drafts may be incomplete too (a draft saved before a field became required for drafts, a
  revision made in the shell, a name another author took meanwhile): checked the same way.

The scheduler asks the same question of each revision at its go-live
(``home.operations.scheduled_publishing.check_publishable``): what an approved revision points
to may have gone by then (its only topic or author deleted), and a refused go-live is reported
like any other that fails.

A page's problems are ``BasePage.publish_problems()``: the model's own validation
(``model_problems``, in words by ``described``) and what its page type adds; a snippet's are the
model's own validation.
"""

from collections.abc import Sized
from urllib.parse import urlsplit

from django.contrib.admin.utils import quote, unquote
from django.core.exceptions import NON_FIELD_ERRORS, ValidationError
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect
from django.urls import Resolver404, resolve, reverse
from django.utils.text import capfirst

from wagtail.admin import messages
from wagtail.admin.modal_workflow import render_modal_workflow
from wagtail.admin.utils import get_valid_next_url_from_request
from wagtail.models import Page
from wagtail.snippets.models import get_workflow_enabled_models

# Errors of the model that a page type's own advice on the same field restates (an article's
# "Choose a card image" says more than "Image: This field cannot be blank."): left out there.
RESTATED_CODES = frozenset({"blank", "null", "max_length"})


def model_problems(page) -> dict[str, list[ValidationError]]:
    """What the model refuses in ``page``: ``{field name or NON_FIELD_ERRORS: [error, ...]}``,
    empty if nothing.

    ``page`` is a specific page, or a snippet, holding the values to publish (a revision's
    ``as_object()``, or the row). Two sources: ``full_clean``, which ``Page.save`` runs before a
    page goes live (for a snippet it also finds a unique value another row has taken since the
    draft was saved), and each editable field the model requires (``blank=False``) left empty
    where ``full_clean`` does not look: a many-to-many relation (an article's authors) and an
    empty StreamField (an article's body), which only the editor's form refuses ("This field is
    required."). ``full_clean`` may fill in the page's empty slug or draft title, as saving
    would: pass a copy that nothing else saves.
    """
    try:
        page.full_clean()
        problems = {}
    except ValidationError as error:
        problems = error.update_error_dict({})
    for field in [*page._meta.concrete_fields, *page._meta.many_to_many]:
        if field.editable and not field.blank and field.name not in problems and is_empty(page, field):
            problems[field.name] = [ValidationError(field.error_messages["blank"], code="blank")]
    return problems


def is_empty(page, field) -> bool:
    """Whether ``page`` has no value for ``field``: no related object, or a sized value of length 0."""
    value = getattr(page, field.name)
    if field.many_to_many:
        return not list(value.all())
    return isinstance(value, Sized) and len(value) == 0


def described(page, problems: dict[str, list[ValidationError]], advised=frozenset()) -> list[str]:
    """``problems`` (``model_problems``) as sentences: "<field label>: <message>", a message
    alone for the whole page. Errors whose code is in ``RESTATED_CODES`` on a field in
    ``advised`` (the fields the page type's own advice covers) are left out."""
    sentences = []
    for name, errors in problems.items():
        if name in advised:
            errors = [error for error in errors if error.code not in RESTATED_CODES]
        text = " ".join(message for error in errors for message in error.messages)
        if not text:
            continue
        if name == NON_FIELD_ERRORS:
            sentences.append(text)
        else:
            sentences.append(f"{capfirst(page._meta.get_field(name).verbose_name)}: {text}")
    return sentences


def problems_of(page) -> list[str]:
    """``page.publish_problems()`` (every ``BasePage``), else (another page type, a snippet) the
    model's problems alone."""
    if hasattr(page, "publish_problems"):
        return page.publish_problems()
    return described(page, model_problems(page))


def latest_content(page):
    """What Wagtail's publish paths make live for ``page`` (any page instance, or a snippet with
    revisions): its latest revision's content as a specific page (or a snippet), else (never
    saved as a revision) a fresh copy of a page's own row, or the snippet itself."""
    revision = page.get_latest_revision()
    if revision is not None:
        return revision.as_object()
    return page.get_specific() if isinstance(page, Page) else page


def title_of(content) -> str:
    """How a refusal names ``content`` (``latest_content``): a page's admin title, else the
    snippet's text, else "<Model> <pk>" (a draft whose name is empty)."""
    if isinstance(content, Page):
        return content.get_admin_display_title()
    return str(content).strip() or f"{capfirst(content._meta.verbose_name)} {content.pk}"


def page_edit_url(pk) -> str:
    """The page editor of page ``pk``."""
    return reverse("wagtailadmin_pages:edit", args=(pk,))


def bulk_publish_failures(pages, user, include_descendants: bool) -> list[tuple[int, str, list[str]]]:
    """The pages the bulk Publish would make live that fail their checks, as ``(pk, title,
    problems)``, in the order it publishes them.

    ``pages`` are the selected pages (Wagtail's ``objects``: ``Page`` instances the user may
    publish). Wagtail's ``PublishBulkAction.execute_action`` publishes each one's latest revision
    (or its row) and, with ``include_descendants``, every descendant that is not live and that
    ``user`` may publish; these are the pages checked, each once.
    """
    seen, failures = set(), []

    def check(page):
        if page.pk in seen:
            return
        seen.add(page.pk)
        content = latest_content(page)
        problems = problems_of(content)
        if problems:
            failures.append((page.pk, content.get_admin_display_title(), problems))

    for page in pages:
        check(page)
        if include_descendants:
            for descendant in page.get_descendants().not_live():
                if descendant.permissions_for_user(user).can_publish():
                    check(descendant)
    return failures


def copy_failures(page, include_subpages: bool) -> list[tuple[int, str, list[str]]]:
    """The live pages a copy with "Publish copies" would make live (``page`` and, with
    ``include_subpages``, its live descendants: Wagtail copies each one's row, its live content,
    and keeps it live) that fail their checks, as ``(pk, title, problems)``."""
    pages = [page, *page.get_descendants().live()] if include_subpages else [page]
    failures = []
    for original in pages:
        if not original.live:
            continue
        content = original.get_specific()
        problems = problems_of(content)
        if problems:
            failures.append((original.pk, content.get_admin_display_title(), problems))
    return failures


def report_failures(request, lead: str, failures, advice: str, edit_url=page_edit_url) -> None:
    """One error message for a refused publish: ``lead`` (what did not happen), each failing page
    of ``failures`` (``(pk, title, problems)``) with its problems, then ``advice``; with a button
    to each one's editor, ``edit_url(pk)`` (the page editor unless told otherwise)."""
    pages = " ".join(f"“{title}”: {' '.join(problems)}" for _pk, title, problems in failures)
    buttons = [messages.button(edit_url(pk), f"Edit “{title}”") for pk, title, _problems in failures]
    messages.error(request, f"{lead} {pages} {advice}", buttons=buttons)


def bulk_return_url(request, pages) -> str:
    """Where a refused bulk action sends the user: its ``next``, if Wagtail's check finds it a URL
    of this site and its path is one the site routes to a view other than a bulk action's, else
    the listing of the first selected page's parent.

    Wagtail's bulk actions fall back to their own path, which without the selection in its query
    string is a 404, as is any bulk action's path (``/admin/bulk/…/publish``, with or without its
    slash) and a path nothing routes; a relative ``next`` ("garbage") would be read against the
    action's path too.
    """
    next_url = get_valid_next_url_from_request(request)
    if next_url.startswith("/"):
        try:
            match = resolve(urlsplit(next_url).path)
        except Resolver404:
            match = None
        if match is not None and match.url_name != "wagtail_bulk_action":
            return next_url
    parent = pages[0].get_parent() if pages else None
    if parent is None:
        return reverse("wagtailadmin_explore_root")
    return reverse("wagtailadmin_explore", args=(parent.pk,))


def workflow_action_target(match, view_kwargs):
    """The object that Wagtail's workflow action view at ``match`` (the request's
    ``resolver_match``) acts on, with the URL of its editor: ``(object, edit URL)``, or None for any
    other view or an object that does not exist (Wagtail's view answers that itself).

    Two kinds of view: pages' (``wagtailadmin_pages:workflow_action``, the page's id as
    ``page_id``) and, for every snippet model with a workflow, its viewset's
    (``wagtailsnippets_<app>_<model>:workflow_action``, the primary key quoted as ``pk``).
    """
    if match.view_name == "wagtailadmin_pages:workflow_action":
        page = Page.objects.filter(pk=view_kwargs.get("page_id")).first()
        return (page, page_edit_url(page.pk)) if page is not None else None
    for model in get_workflow_enabled_models():
        viewset = model.snippet_viewset
        if match.view_name != viewset.get_url_name("workflow_action"):
            continue
        try:
            instance = get_object_or_404(model, pk=unquote(str(view_kwargs.get("pk"))))
        except (Http404, ValueError, ValidationError):  # no such row, or not a key of this model
            return None
        return instance, reverse(viewset.get_url_name("edit"), args=(quote(instance.pk),))
    return None


class ApprovalChecksMiddleware:
    """Refuses **Approve** in Wagtail's workflow action view when the latest revision of the page
    or snippet (``workflow_action_target``), which approval publishes (Wagtail's
    ``publish_workflow_state``), fails ``problems_of``.

    The view takes no form, so nothing checks what it publishes: an editor's submission passed
    the checks, but a moderator or administrator may save an incomplete draft of a page in review,
    and approving it there published that draft, or was a 500 where the model refuses it (a page's
    ``full_clean``, a snippet's unique name taken meanwhile). The refusal leaves the task in
    progress, says what to fix, and goes where Wagtail's view goes (its ``next``, else the
    editor); from the modal ("Approve with comment") as the JSON the modal follows. Every
    approval is checked, not only the last task's: what it approves must pass before it can be
    published anyway. Approving in the editor validates the form and is left alone. Place after
    ``MessageMiddleware``, before ``ReviewOutcomeMiddleware``.
    """

    def __init__(self, get_response):
        self.get_response = get_response

    def __call__(self, request):
        return self.get_response(request)

    def process_view(self, request, view_func, view_args, view_kwargs):
        match = request.resolver_match
        if request.method != "POST" or match is None or view_kwargs.get("action_name") != "approve":
            return None
        target = workflow_action_target(match, view_kwargs)
        if target is None:
            return None
        instance, edit_url = target
        task_state = instance.current_workflow_task_state
        # Anything Wagtail would refuse (no such task, not this user's to approve) it refuses itself.
        if task_state is None or task_state.pk != view_kwargs.get("task_state_id"):
            return None
        actions = task_state.task.specific.get_actions(instance, request.user)
        if "approve" not in (action[0] for action in actions):
            return None
        content = latest_content(instance)
        problems = problems_of(content)
        if not problems:
            return None
        report_failures(
            request,
            "Not approved, so nothing was published.",
            [(instance.pk, title_of(content), problems)],
            "Fix this in the editor, then approve again, or request changes.",
            edit_url=lambda _pk: edit_url,
        )
        url = get_valid_next_url_from_request(request) or edit_url
        if request.headers.get("x-requested-with") == "XMLHttpRequest":
            return render_modal_workflow(request, None, json_data={"step": "success", "redirect": url})
        return redirect(url)
