"""Development sign-in: any display name, no password, so that rated play can be tried on a
machine with no sign-in provider (two browsers, ``scripts/run``; README "Rated games on your
machine").

On only with ``settings.DEV_SIGN_IN`` (on by default when ``DJANGO_ENV=development``; the
production settings refuse it). A name always gives the same account (``dev-`` and a hash of
the name, case-folded), with the name as its profile's display name; signing in also hands
the session guest's games to it, as a provider's sign-in does (``accounts.adopt_guest``).
"""

import hashlib

from django.conf import settings
from django.contrib.auth import get_user_model, login
from django.http import Http404
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import url_has_allowed_host_and_scheme
from django.utils.translation import gettext as _
from django.views.decorators.http import require_POST

from games.accounts.models import Profile

#: the longest name accepted (a profile's display name)
NAME_MAX = Profile._meta.get_field("display_name").max_length
#: the backend that signs the account in (no password is checked: there is none)
BACKEND = "django.contrib.auth.backends.ModelBackend"


def enabled():
    """True when this server offers the development sign-in."""
    return bool(getattr(settings, "DEV_SIGN_IN", False))


def clean_name(raw):
    """``raw`` as a display name: any white space (tabs, new lines) a plain space, other
    control characters dropped, spaces collapsed, at most ``NAME_MAX`` characters; "" when
    nothing is left."""
    text = raw if isinstance(raw, str) else ""
    kept = "".join(" " if ch.isspace() else ch for ch in text if ch.isspace() or ch.isprintable())
    return " ".join(kept.split())[:NAME_MAX].strip()


def account_for(name):
    """The account of display name ``name`` (made on first use, with no usable password)."""
    username = "dev-" + hashlib.sha256(name.casefold().encode()).hexdigest()[:20]
    user, made = get_user_model().objects.get_or_create(username=username)
    if made:
        user.set_unusable_password()
        user.save(update_fields=["password"])
    Profile.objects.update_or_create(user=user, defaults={"display_name": name})
    return user


def _back(request):
    """Where to go after signing in: the form's ``next`` if it is a page of this site, else the
    home page."""
    target = request.POST.get("next") or ""
    if url_has_allowed_host_and_scheme(
        target, allowed_hosts={request.get_host()}, require_https=request.is_secure()
    ):
        return target
    return reverse("rules:home")


@require_POST
def sign_in(request):
    """POST ``name`` (and ``next``): sign in as the development account of that name and go
    back to ``next``. 404 when the server does not offer it; the sign-in page again with the
    reason (400) when the name is empty."""
    if not enabled():
        raise Http404
    name = clean_name(request.POST.get("name"))
    if not name:
        return render(
            request,
            "account/login.html",
            {"dev_error": _("Type the name you want to play under."), "next": _back(request)},
            status=400,
        )
    login(request, account_for(name), backend=BACKEND)
    return redirect(_back(request))
