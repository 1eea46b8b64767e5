"""Editorial roles and the review workflow, set up idempotently (``load_demo`` calls this).

The rules come from issue 3:

- **Editors** create and edit pages in the blog sections (articles, topics' intros) and
  authors, save drafts and submit them for review. Without ``publish_page`` Wagtail refuses
  them publish, unpublish and the deletion of live pages (``PagePermissionTester.can_delete``).
  Their page permissions sit on the blog indexes, not the tree root: Wagtail's ``can_lock``
  asks only for ``lock_page``, so editors could otherwise lock pages they may not edit, such
  as the home page (issue 16).
- **Moderators** can do all of that, and publish: approve (which publishes) or request changes
  with a comment in the "Editorial review" workflow.
- **Administrators** are superusers: everything.

Wagtail's own migrations already create the "Editors" and "Moderators" groups with admin access
and image and document permissions; we reuse them and make their page and snippet permissions
exactly what the rules say.
"""

from django.contrib.auth.models import Group, Permission
from django.contrib.contenttypes.models import ContentType
from django.db import transaction

from wagtail.models import (
    Collection,
    GroupApprovalTask,
    GroupCollectionPermission,
    GroupPagePermission,
    Page,
    Workflow,
    WorkflowContentType,
    WorkflowPage,
    WorkflowTask,
)

from .models import Author

EDITORS = "Editors"
MODERATORS = "Moderators"
WORKFLOW_NAME = "Editorial review"
TASK_NAME = "Moderator approval"

# Page permissions per role; ``PAGE_PERMISSION_SCOPE`` says where they are granted: on the tree
# root (every page) or on each blog index (the blog section below it, the index included).
ROOT = "root"
BLOG_SECTIONS = "blog sections"
PAGE_PERMISSION_SCOPE = {EDITORS: BLOG_SECTIONS, MODERATORS: ROOT}
PAGE_PERMISSIONS = {
    EDITORS: {"add_page", "change_page", "lock_page"},
    MODERATORS: {"add_page", "change_page", "publish_page", "lock_page", "unlock_page"},
}
# Model permissions (app_label.codename) beyond Wagtail's defaults, e.g. the Author snippet.
# Authors go through review like pages: editors save drafts (``publish_author`` is what
# moderators approve with); ``publish``/``lock``/``unlock`` permissions are Wagtail's own for
# snippets with DraftStateMixin/LockableMixin.
MODEL_PERMISSIONS = {
    EDITORS: {"wagtailadmin.access_admin", "blog.add_author", "blog.change_author", "blog.lock_author"},
    MODERATORS: {
        "wagtailadmin.access_admin",
        "blog.add_author",
        "blog.change_author",
        "blog.delete_author",
        "blog.publish_author",
        "blog.lock_author",
        "blog.unlock_author",
    },
}
# Image and document permissions on the root collection (app_label.codename), which Wagtail's
# own migrations grant only to the groups that exist when they run.
COLLECTION_PERMISSIONS = {
    role: {
        "wagtailimages.add_image",
        "wagtailimages.change_image",
        "wagtailimages.choose_image",
        "wagtaildocs.add_document",
        "wagtaildocs.change_document",
        "wagtaildocs.choose_document",
    }
    for role in (EDITORS, MODERATORS)
}
# Model permissions our roles must not have, whatever an earlier setup granted.
FORBIDDEN_MODEL_PERMISSIONS = {
    EDITORS: {"blog.delete_author", "blog.publish_author", "blog.unlock_author"},
    MODERATORS: set(),
}


def _permission(label: str) -> Permission:
    app_label, codename = label.split(".")
    return Permission.objects.get(content_type__app_label=app_label, codename=codename)


def _page_permission(codename: str) -> Permission:
    return Permission.objects.get(content_type=ContentType.objects.get_for_model(Page), codename=codename)


def ensure_groups(blog_indexes=()) -> int:
    """Give the Editors and Moderators groups exactly their page and snippet permissions, and the
    image and document permissions on the root collection (so their choosers list the library).

    ``blog_indexes``: the pages whose sections editors work in (``PAGE_PERMISSION_SCOPE``).
    Returns the number of changes made (0 when everything already matches).
    """
    changes = 0
    root = Page.get_first_root_node()
    for name, codenames in PAGE_PERMISSIONS.items():
        group, created = Group.objects.get_or_create(name=name)
        changes += created
        pages = [root] if PAGE_PERMISSION_SCOPE[name] == ROOT else list(blog_indexes)
        for page in pages:
            existing = GroupPagePermission.objects.filter(group=group, page=page)
            have = set(existing.values_list("permission__codename", flat=True))
            for codename in codenames - have:
                GroupPagePermission.objects.create(group=group, page=page, permission=_page_permission(codename))
                changes += 1
        # Page permissions anywhere else in the tree, or beyond the role's (e.g. publish for
        # editors), go.
        deleted, _ = (
            GroupPagePermission.objects.filter(group=group).exclude(
                page__in=[page.pk for page in pages], permission__codename__in=codenames
            )
        ).delete()
        changes += deleted

        for label in MODEL_PERMISSIONS[name]:
            permission = _permission(label)
            if not group.permissions.filter(pk=permission.pk).exists():
                group.permissions.add(permission)
                changes += 1
        collection = Collection.get_first_root_node()
        for label in COLLECTION_PERMISSIONS[name] if collection else ():
            _granted, created = GroupCollectionPermission.objects.get_or_create(
                group=group, collection=collection, permission=_permission(label)
            )
            changes += created
        for label in FORBIDDEN_MODEL_PERMISSIONS[name]:
            permission = _permission(label)
            if group.permissions.filter(pk=permission.pk).exists():
                group.permissions.remove(permission)
                changes += 1
    return changes


def ensure_review_workflow(pages) -> tuple[Workflow, int]:
    """The "Editorial review" workflow (one Moderators approval task), assigned to ``pages``
    and to the Author snippet.

    ``pages`` are usually the blog index pages: every article and topic below them then goes
    through the workflow. Returns ``(workflow, number_of_changes)``.
    """

    changes = 0
    moderators = Group.objects.get(name=MODERATORS)
    workflow, created = Workflow.objects.get_or_create(name=WORKFLOW_NAME, defaults={"active": True})
    changes += created
    if not workflow.active:
        workflow.active = True
        workflow.save(update_fields=["active"])
        changes += 1
    task = GroupApprovalTask.objects.filter(name=TASK_NAME).first()
    if task is None:
        task = GroupApprovalTask.objects.create(name=TASK_NAME)
        changes += 1
    if not task.active:
        task.active = True
        task.save(update_fields=["active"])
        changes += 1
    if set(task.groups.all()) != {moderators}:
        task.groups.set([moderators])
        changes += 1
    if list(WorkflowTask.objects.filter(workflow=workflow).values_list("task_id", flat=True)) != [task.pk]:
        WorkflowTask.objects.filter(workflow=workflow).delete()
        WorkflowTask.objects.create(workflow=workflow, task=task, sort_order=0)
        changes += 1
    for page in pages:
        assignment = WorkflowPage.objects.filter(page=page).first()
        if assignment is None or assignment.workflow_id != workflow.pk:
            WorkflowPage.objects.update_or_create(page=page, defaults={"workflow": workflow})
            changes += 1
    author_type = ContentType.objects.get_for_model(Author)
    if not WorkflowContentType.objects.filter(content_type=author_type, workflow=workflow).exists():
        WorkflowContentType.objects.update_or_create(content_type=author_type, defaults={"workflow": workflow})
        changes += 1
    return workflow, changes


@transaction.atomic
def ensure_editorial_roles(blog_indexes) -> int:
    """Groups, permissions and the review workflow on each blog index; returns the change count."""
    changes = ensure_groups(blog_indexes)
    _, workflow_changes = ensure_review_workflow(blog_indexes)
    return changes + workflow_changes
