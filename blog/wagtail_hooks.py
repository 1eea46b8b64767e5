"""Admin wiring for the blog: reviewer-link views, their history entries and header button."""

from django.urls import path, reverse

from wagtail import hooks
from wagtail.admin.widgets import Button

from blog import reviewer_links


@hooks.register("register_admin_urls")
def register_reviewer_link_urls():
    return [
        path("reviewer-links/<int:page_id>/", reviewer_links.manage, name="reviewer_links"),
        path(
            "reviewer-links/<int:page_id>/<int:link_id>/revoke/",
            reviewer_links.revoke,
            name="reviewer_links_revoke",
        ),
    ]


@hooks.register("register_log_actions")
def register_reviewer_link_actions(actions):
    actions.register_action(reviewer_links.VIEW_ACTION, "Viewed by reviewer link", "Viewed through a reviewer link")
    actions.register_action(reviewer_links.CREATE_ACTION, "Reviewer link created", "Reviewer link created")
    actions.register_action(reviewer_links.REVOKE_ACTION, "Reviewer link revoked", "Reviewer link revoked")


@hooks.register("register_page_header_buttons")
def reviewer_links_button(page, user, view_name=None, next_url=None):
    if page.depth > 1 and page.permissions_for_user(user).can_edit():
        yield Button("Reviewer links", url=reverse("reviewer_links", args=(page.pk,)), icon_name="link", priority=66)
