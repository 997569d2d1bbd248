"""The claim packs shipped with the verifier (each registered under the ``verifier.packs`` entry point).

``REGISTRY`` holds their claims, loaded by the same discovery as any installed pack, so the
tests see exactly what ``verify`` sees.
"""


def __getattr__(name):
    # loaded on first use: the discovery imports this package's packs, which import this module
    if name == "REGISTRY":
        from verifier.registry import load_installed

        registry = load_installed(lambda ep: ep.module.partition(".")[0] == __name__)
        if registry.errors or not len(registry):
            problems = "; ".join(map(str, registry.errors)) or "no pack of this package is registered: run `pip install -e .`"
            raise ImportError(f"lemmas.REGISTRY: {problems}")
        globals()["REGISTRY"] = registry
        return registry
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
