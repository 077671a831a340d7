"""The production storage of static files: WhiteNoise's compressed, hashed files, with the
imports of JavaScript modules rewritten to the hashed names too.

The game page is ES modules (``static/games/room/``) that import each other by relative name
(``import { x } from "./state.js";``). With hashed file names, ``main.<hash>.js`` would still
ask for ``./state.js``, which production does not serve. Django's
``support_js_module_import_aggregation`` rewrites such imports and re-exports in every ``*.js``
file (its patterns need the closing semicolon). Its patterns are plain regular expressions:
a module keeps its imports first and no comment above them uses the words import or export
followed by a space, or a pattern could start early and hash a name twice
(nardy_site/tests/test_deploy_production.py checks that every import finds its file).
"""

from whitenoise.storage import CompressedManifestStaticFilesStorage


class ModuleManifestStaticFilesStorage(CompressedManifestStaticFilesStorage):
    support_js_module_import_aggregation = True
