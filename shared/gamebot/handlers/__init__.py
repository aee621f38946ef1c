"""The handlers, by feature: each a module of public functions ``(deps, job, ...)`` that decide a plan
in the unit of work and deliver it. ``gamebot.dispatch`` maps an update to one of them."""
