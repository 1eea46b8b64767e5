"""Reviewer links: a signed, expiring, revocable URL that shows one draft revision to a reviewer.

- ``/review/<token>/`` (public): the token is the link's id signed with ``django.core.signing``
  (SECRET_KEY and a salt), so it cannot be guessed or edited; the same link keeps one URL. It
  renders that revision as a preview, under a "Draft for review, not published" banner and
  without the site's Login/demo calls to action, with ``noindex`` (the ``X-Robots-Tag`` header and a robots
  meta tag), no caching and no referrer; each view is logged in the page's history. A bad token
  is a 404; a revoked or expired link, or one whose revision or a newer one of the page has been
  published (``ReviewerLink.revision_published``), is a 410 saying which.
- ``/admin/reviewer-links/<page_id>/`` (admin): people who can edit the page list its links,
  create one for the latest revision (valid ``REVIEWER_LINK_DAYS`` days, default 7) and revoke.
"""

from datetime import timedelta

from django.conf import settings
from django.contrib import messages
from django.core import signing
from django.core.exceptions import PermissionDenied
from django.http import Http404
from django.shortcuts import get_object_or_404, redirect
from django.template.response import TemplateResponse
from django.urls import reverse
from django.utils import timezone
from django.views.decorators.csrf import csrf_exempt
from django.views.decorators.http import require_http_methods, require_POST, require_safe

from wagtail.log_actions import log
from wagtail.models import Page

from blog.models import ReviewerLink

SALT = "blog.reviewer-link"
VIEW_ACTION = "blog.reviewer_link.view"
CREATE_ACTION = "blog.reviewer_link.create"
REVOKE_ACTION = "blog.reviewer_link.revoke"


def link_days() -> int:
    """How long new links work, in days (setting ``REVIEWER_LINK_DAYS``, default 7)."""
    return int(getattr(settings, "REVIEWER_LINK_DAYS", 7))


def make_token(link: ReviewerLink) -> str:
    """The URL token for ``link``: its id, signed with SECRET_KEY and this feature's salt."""
    return signing.Signer(salt=SALT).sign_object(link.pk)


def link_url(request, link: ReviewerLink) -> str:
    """The absolute public URL of ``link``."""
    return request.build_absolute_uri(reverse("reviewer_link", args=(make_token(link),)))


def _private(response):
    response["X-Robots-Tag"] = "noindex, nofollow"
    response["Cache-Control"] = "private, no-store"
    response["Referrer-Policy"] = "no-referrer"
    return response


@csrf_exempt  # read-only: another method gets its 405, not a CSRF 403
@require_safe
def review(request, token: str):
    """Serve the revision a reviewer link names (public; see the module docstring for the rules).
    GET and HEAD only; only a GET is logged in the page's history (link checkers and chat
    previews send HEAD first)."""
    try:
        link_id = signing.Signer(salt=SALT).unsign_object(token)
    except (signing.BadSignature, ValueError) as error:
        raise Http404("No such review link.") from error
    if not isinstance(link_id, int):
        raise Http404("No such review link.")
    link = ReviewerLink.objects.select_related("revision", "page").filter(pk=link_id).first()
    if link is None:
        raise Http404("No such review link.")
    refusal = link.refusal()
    if refusal:
        response = TemplateResponse(request, "reviewer_links/gone.html", {"reason": refusal}, status=410)
        return _private(response)

    page = link.revision.as_object()
    if request.method == "GET":
        log(instance=link.page.specific, action=VIEW_ACTION, revision=link.revision, data={"link": link.pk}, user=None)
    request.is_preview = True
    request.preview_mode = page.default_preview_mode
    # Templates show the "Draft for review, not published" banner and hide the site's calls to action.
    request.reviewer_link = link
    response = page.serve_preview(request, page.default_preview_mode)
    if hasattr(response, "render"):
        response.render()
    return _private(response)


def _editable_page(request, page_id: int) -> Page:
    page = get_object_or_404(Page, pk=page_id).specific
    if not page.permissions_for_user(request.user).can_edit():
        raise PermissionDenied
    return page


@require_http_methods(["GET", "POST"])
def manage(request, page_id: int):
    """List the page's reviewer links; POST creates one for the page's latest revision."""
    page = _editable_page(request, page_id)
    if request.method == "POST":
        revision = page.get_latest_revision()
        if revision is None:
            revision = page.save_revision(user=request.user)
        link = ReviewerLink.objects.create(
            page=page,
            revision=revision,
            created_by=request.user,
            expires_at=timezone.now() + timedelta(days=link_days()),
        )
        log(instance=page, action=CREATE_ACTION, revision=revision, data={"link": link.pk}, user=request.user)
        messages.success(request, f"Reviewer link created (works for {link_days()} days): {link_url(request, link)}")
        return redirect("reviewer_links", page_id=page.pk)
    links = [
        {"link": link, "url": link_url(request, link), "refusal": link.refusal()}
        for link in ReviewerLink.objects.filter(page=page).select_related("created_by")
    ]
    return TemplateResponse(
        request,
        "reviewer_links/manage.html",
        {"page": page, "links": links, "days": link_days(), "header_title": f"Reviewer links: {page.title}"},
    )


@require_POST
def revoke(request, page_id: int, link_id: int):
    """Revoke one of the page's links (POST); it stops working at once."""
    page = _editable_page(request, page_id)
    link = get_object_or_404(ReviewerLink, pk=link_id, page=page)
    if link.revoked_at is None:
        link.revoked_at = timezone.now()
        link.save(update_fields=["revoked_at"])
        log(instance=page, action=REVOKE_ACTION, revision=link.revision, data={"link": link.pk}, user=request.user)
        messages.success(request, "Reviewer link revoked.")
    return redirect("reviewer_links", page_id=page.pk)
