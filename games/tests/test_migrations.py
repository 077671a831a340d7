"""The migrations describe the models as they are: the areas' models (each in its own
package, one app ``games``) need no new migration, so moving a model between packages never
renames a table."""

from io import StringIO

import pytest
from django.core.management import call_command

pytestmark = pytest.mark.django_db


def test_the_models_need_no_new_migration():
    out = StringIO()
    call_command("makemigrations", "--check", "--dry-run", stdout=out)  # exits 1 on a change
    assert "No changes detected" in out.getvalue()
