"""Checks Llama Stack config.yaml files the way the real server would, with the
package of one release (run it with that release's venv python): `llama-stack`
(modules llama_stack / llama_stack_api) up to 0.7, or its renamed successor
`ogx` (modules ogx / ogx_api) from 0.8 on; whichever the venv has is imported.

It runs the same top-level parse as `llama stack run` / `ogx stack run`
(<module>.core.configure.parse_and_maybe_upgrade_config: the release's own
rewrites of the raw dict, env substitution, then StackConfig), instantiates
every enabled provider's config class from the provider registry (what the
server does at startup), and adds the checks the library leaves to startup time
or never makes: storage references, registered resources, `apis` coverage,
provider API dependencies, the server's own start-up refusals (strict TLS, auth
TLS verification), and keys that pydantic silently drops (unknown keys, also a
field's Python name where only its alias is read), at every level.

Usage:
  python validate.py CONFIG.yaml [ENV_JSON]
      -> {"findings": [{"code", "path", "message"}, ...]}
  python validate.py --batch  < [{"name", "configPath" | "configYaml", "env"}, ...]
      -> {"results": {NAME: {"findings": [...], "seconds": S}}, "importSeconds": S}

ENV_JSON is the whole environment the container would have (a JSON object of
strings): `${env.X}` is resolved against it and nothing else. Paths name the
place in the YAML as written (list indices count every entry, also those that
env substitution drops). The exit status is 0 whenever findings could be
computed; non-zero means the validator itself broke.

Finding codes (stable identifiers):
  yaml-invalid               the text is not YAML
  stack-config-invalid       StackConfig (the top-level parse of `llama stack run`) rejects it
  env-unset                  a bare ${env.X} whose X the given env lacks (EnvVarError at startup)
  unknown-key                a key pydantic drops silently (top level, server, storage,
                             registered_resources, provider entries and provider configs, nested)
  unknown-api                a key under `providers` or an `apis` entry that is not a providable
                             API of the release (unknown, routing table, or internal)
  unknown-provider-type      provider_type not in the release's registry for that API
  external-provider-unavailable
                             a provider entry's `module` cannot be loaded the way the release
                             loads it (<module>.provider.get_provider_spec), has no spec for
                             its provider_type, or the module the spec names has no
                             get_adapter_impl (remote) / get_provider_impl (inline)
  provider-deprecated        the registry marks the provider type with a deprecation error
  provider-config-invalid    the provider's config class rejects its config
  provider-id-duplicate      two enabled providers of one API share a provider_id
  api-without-provider       an API in `apis` that no enabled provider implements
  api-not-served             an API with enabled providers that `apis` does not list
  api-dependency-missing     a provider's declared API dependency is not available
  store-backend-missing      a KV/SQL store reference (storage.stores or inside a provider
                             config) names a backend storage.backends lacks
  store-backend-kind         ... or a backend of the wrong kind (kv_* vs sql_*)
  resource-provider-missing  a registered resource whose provider is not an enabled provider
                             of the resource's API
  resource-without-provider  a registered resource without provider_id (never registered)
  resource-api-missing       registered resources whose API is not served (never registered)
  resource-ignored           a registered_resources list the release accepts but never registers
  resource-invalid           an entry registration rejects (embedding model without dimension)
  default-provider-missing   vector_stores defaults that name a provider that is not enabled
  default-shield-missing     safety.default_shield_id the server cannot resolve
  tls-required               neither server TLS (tls_certfile and tls_keyfile) nor server.insecure:
                             true; `ogx stack run` exits with "TLS required" (releases whose
                             ServerConfig has `insecure`, ogx 1.2.0+)
  auth-refused               server.auth settings create_app refuses (validate_auth_security, ogx
                             1.2.0+): verify_tls false without server.insecure, or local_api_key
                             with tenancy mode multi (1.4.1+)
  validator-mismatch         validate.py's env substitution disagrees with the library's (a bug here)
"""

from __future__ import annotations

import copy
import importlib.metadata
import importlib.util
import inspect
import json
import os
import re
import sys
import time
import traceback
import types
import typing
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

_START = time.monotonic()
# Library logging must not reach stdout, which carries the JSON answer.
_STDOUT = sys.stdout
sys.stdout = sys.stderr
# llama-stack (<= 0.7) or ogx (>= 0.8): same layout, renamed modules and env prefix.
if importlib.util.find_spec("ogx") is not None:
    PACKAGE, MODULE, API_MODULE, ENV_PREFIX = "ogx", "ogx", "ogx_api", "OGX"
else:
    PACKAGE, MODULE, API_MODULE, ENV_PREFIX = "llama-stack", "llama_stack", "llama_stack_api", "LLAMA_STACK"
os.environ.setdefault(f"{ENV_PREFIX}_LOGGING", "all=critical")
warnings.simplefilter("ignore")

import yaml  # noqa: E402
from pydantic import AliasChoices, AliasPath, BaseModel, TypeAdapter, ValidationError  # noqa: E402

ls_stack = importlib.import_module(f"{MODULE}.core.stack")
ls_configure = importlib.import_module(f"{MODULE}.core.configure")
ls_datatypes = importlib.import_module(f"{MODULE}.core.datatypes")
ls_distribution = importlib.import_module(f"{MODULE}.core.distribution")
ls_storage = importlib.import_module(f"{MODULE}.core.storage.datatypes")
ls_dynamic = importlib.import_module(f"{MODULE}.core.utils.dynamic")
ls_api = importlib.import_module(API_MODULE)

parse_and_maybe_upgrade_config = ls_configure.parse_and_maybe_upgrade_config
upgrade_from_routing_table = ls_configure.upgrade_from_routing_table
StackConfig: type[BaseModel] = ls_datatypes.StackConfig
builtin_automatically_routed_apis = ls_distribution.builtin_automatically_routed_apis
get_provider_registry = ls_distribution.get_provider_registry
EnvVarError: type[Exception] = ls_stack.EnvVarError
replace_env_vars = ls_stack.replace_env_vars
KVStoreReference: type[BaseModel] = ls_storage.KVStoreReference
ServerStoresConfig: type[BaseModel] = ls_storage.ServerStoresConfig
SqlStoreReference: type[BaseModel] = ls_storage.SqlStoreReference
StorageConfig: type[BaseModel] = ls_storage.StorageConfig
instantiate_class_type = ls_dynamic.instantiate_class_type
Api = ls_api.Api
RemoteProviderSpec = ls_api.RemoteProviderSpec

IMPORT_SECONDS = time.monotonic() - _START

# --- what the installed release says -------------------------------------------------

REGISTRY = {api.value: specs for api, specs in get_provider_registry().items()}
ROUTED = builtin_automatically_routed_apis()
ROUTER_APIS = {info.router_api.value for info in ROUTED}
TABLE_OF_ROUTER = {info.router_api.value: info.routing_table_api.value for info in ROUTED}
ROUTER_OF_TABLE = {table: router for router, table in TABLE_OF_ROUTER.items()}
ALL_APIS = {api.value for api in Api}
# The APIs the server always instantiates itself (add_internal_implementations).
INTERNAL_APIS = set(re.findall(r"impls\[Api\.(\w+)\]", inspect.getsource(ls_stack.add_internal_implementations)))
if not INTERNAL_APIS:
    raise RuntimeError(f"could not read the internal APIs from {MODULE}.core.stack.add_internal_implementations")
# registered_resources categories the server registers, with the routing table
# that registers them (<module>.core.stack.RESOURCES; 0.7 dropped tool_groups,
# ogx 0.8 datasets/scoring_fns/benchmarks, ogx 1.0 shields).
RESOURCE_TABLES = {entry[0]: entry[1].value for entry in ls_stack.RESOURCES}
RESOURCE_ID_FIELDS = list(ls_stack.RESOURCE_ID_FIELDS)


def _source_of(module: str) -> str:
    """A module's source text, without importing it (the server module is heavy)."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.origin:
        return ""
    with open(spec.origin) as f:
        return f.read()


def _function_source(source: str, name: str) -> str:
    match = re.search(rf"^def {name}\(.*?(?=^(?:def|class|async def) |\Z)", source, re.M | re.S)
    return match.group(0) if match else ""


# Top-level keys outside StackConfig that the server reads from the raw YAML:
# create_app() reads `logging_config` itself.
_SERVER_SOURCE = _source_of(f"{MODULE}.core.server.server")
_RUN_SOURCE = _source_of(f"{MODULE}.cli.stack.run")
EXTRA_TOP_LEVEL_KEYS = {"logging_config"} if 'get("logging_config")' in _SERVER_SOURCE else set()
RELEASE = importlib.metadata.version(PACKAGE)
PRODUCT = f"{PACKAGE} {RELEASE}"
RUN_CONFIG_VERSION = getattr(ls_datatypes, "OGX_RUN_CONFIG_VERSION", None) or getattr(
    ls_datatypes, "LLAMA_STACK_RUN_CONFIG_VERSION", 2
)
CLI = "ogx stack run" if PACKAGE == "ogx" else "llama stack run"

# What parse_and_maybe_upgrade_config does to the raw dict before env
# substitution, besides the routing_table upgrade and `version`: the module's
# own rewrites called on config_dict (ogx 1.0+ _migrate_prompts_kv_to_sql,
# 1.2+ _ensure_tenancy_defaults). Called here too, so the mirror is what the
# library parses.
PRE_SUBSTITUTION_REWRITES = []
for _name in re.findall(r"^\s*(_\w+)\(config_dict\)\s*$", inspect.getsource(parse_and_maybe_upgrade_config), re.M):
    _rewrite = getattr(ls_configure, _name, None)
    if not callable(_rewrite):
        raise RuntimeError(f"parse_and_maybe_upgrade_config calls {_name}, which validate.py cannot find")
    PRE_SUBSTITUTION_REWRITES.append(_rewrite)

# ogx 1.2+: `ogx stack run` exits ("TLS required") unless the server has a
# certificate and key or `insecure: true` (the --insecure flag only sets it).
_SERVER_CONFIG = ls_datatypes.ServerConfig
STRICT_TLS = "insecure" in _SERVER_CONFIG.model_fields and "TLS required" in _RUN_SOURCE
# ogx 1.2+: create_app's validate_auth_security exits on an auth provider with
# verify_tls false unless `insecure`, and (1.4.1+) on local_api_key with tenancy multi.
_AUTH_SOURCE = _function_source(_SERVER_SOURCE, "validate_auth_security")
AUTH_VERIFY_TLS_FATAL = "verify_tls" in _AUTH_SOURCE and "SystemExit" in _AUTH_SOURCE
AUTH_LOCAL_KEY_NOT_MULTI = "LocalApiKeyAuthConfig" in _AUTH_SOURCE and "TenancyMode.MULTI" in _AUTH_SOURCE
# ogx 1.0+: a model with provider_id `all` is registered on the first enabled inference provider.
MODELS_ON_ALL = 'provider_id == "all"' in inspect.getsource(ls_stack.register_resources)
# ogx (1.4.1, 1.5.0): the resolver injects vector_stores_config into remote
# providers too, and storage.stores.vector_stores as a missing `metadata_store`.
_INSTANTIATE_SOURCE = inspect.getsource(importlib.import_module(f"{MODULE}.core.resolver").instantiate_provider)
INJECTS_INTO_REMOTE = "_inject_config_defaults" in _INSTANTIATE_SOURCE
INJECTS_METADATA_STORE = "metadata_store" in _INSTANTIATE_SOURCE
# ogx 1.5: `apis` (also an empty list) is authoritative for the HTTP surface,
# and a listed API without an implementation is skipped with a warning rather
# than failing the start.
APIS_TO_SERVE_SKIPS = "def apis_to_serve" in _SERVER_SOURCE and "Skipping API with no implementation" in _SERVER_SOURCE

DROPPED = object()  # a list entry that env substitution removes
# Field names whose values stay out of messages.
SECRET_NAME = re.compile(r"(key|token|password|secret|credential)", re.IGNORECASE)
PLACEHOLDER_PREFIX = "llsd-unset-"


class Findings:
    def __init__(self) -> None:
        self.items: list[dict[str, str]] = []

    def add(self, code: str, path: str, message: str) -> None:
        item = {"code": code, "path": path, "message": message}
        if item not in self.items:
            self.items.append(item)


def join(path: str, key: Any) -> str:
    return f"{path}.{key}" if path else str(key)


def compact(node: Any) -> Any:
    if isinstance(node, dict):
        return {k: compact(v) for k, v in node.items()}
    if isinstance(node, list):
        return [compact(v) for v in node if v is not DROPPED]
    return node


@contextmanager
def environment(env: dict[str, str]) -> Iterator[None]:
    """os.environ is exactly `env` inside (Llama Stack reads os.environ)."""
    saved = dict(os.environ)
    os.environ.clear()
    os.environ.update(env)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


# --- env substitution that keeps the YAML's shape ------------------------------------


class Expander:
    """Mirrors llama_stack.core.stack.replace_env_vars node by node, calling the
    real function on every string, but keeps dropped list entries as DROPPED
    (so paths keep the YAML's indices) and records every bare ${env.X} that is
    unset, substituting a placeholder so that the rest can still be checked."""

    def __init__(self) -> None:
        self.unset: list[tuple[str, str]] = []
        self.placeholders: dict[str, str] = {}

    def leaf(self, value: str, path: str) -> Any:
        restore: dict[str, str | None] = {}
        try:
            for _ in range(100):
                try:
                    return replace_env_vars(value, path)
                except EnvVarError as e:
                    self.unset.append((e.var_name, e.path or path))
                    self.placeholders[e.var_name] = PLACEHOLDER_PREFIX + e.var_name.lower()
                    restore.setdefault(e.var_name, os.environ.get(e.var_name))
                    os.environ[e.var_name] = self.placeholders[e.var_name]
            raise RuntimeError(f"env substitution did not converge at {path}")
        finally:
            for name, old in restore.items():
                if old is None:
                    os.environ.pop(name, None)
                else:
                    os.environ[name] = old

    def expand(self, node: Any, path: str = "") -> Any:
        if isinstance(node, dict):
            if path == "server.auth" and isinstance(node.get("provider_config"), dict):
                provider_config = node["provider_config"]
                if "type" in provider_config:
                    try:
                        kind = replace_env_vars(provider_config["type"], f"{path}.provider_config.type")
                        if kind is None or kind == "":
                            out = {k: self.expand(v, join(path, k)) for k, v in node.items() if k != "provider_config"}
                            out["provider_config"] = None
                            return out
                    except EnvVarError:
                        pass
            return {k: self.expand(v, join(path, k)) for k, v in node.items()}
        if isinstance(node, list):
            out_list: list[Any] = []
            for i, item in enumerate(node):
                item_path = f"{path}[{i}]"
                if isinstance(item, dict) and "provider_id" in item:
                    try:
                        if replace_env_vars(item["provider_id"], f"{item_path}.provider_id") == "__disabled__":
                            out_list.append(DROPPED)
                            continue
                    except EnvVarError:
                        pass
                if isinstance(item, dict) and self.empty_id(item, item_path):
                    out_list.append(DROPPED)
                    continue
                out_list.append(self.expand(item, item_path))
            return out_list
        if isinstance(node, str):
            return self.leaf(node, path)
        return node

    @staticmethod
    def empty_id(item: dict[str, Any], item_path: str) -> bool:
        for field in RESOURCE_ID_FIELDS:
            if field in item:
                try:
                    resolved = replace_env_vars(item[field], f"{item_path}.{field}")
                except EnvVarError:
                    continue
                if resolved is None or resolved == "":
                    return True
        return False


# --- pydantic error locations -> YAML paths -----------------------------------------


def loc_path(base: str, node: Any, loc: tuple[Any, ...], error_type: str) -> str:
    """Follows a pydantic error location through the (mirrored) data. Union
    tags in the location (e.g. `kv_sqlite`, `CORSConfig`) are skipped; list
    indices are mapped back to the YAML's own indices."""
    path = base
    for j, comp in enumerate(loc):
        if isinstance(node, list) and isinstance(comp, int):
            kept = [i for i, v in enumerate(node) if v is not DROPPED]
            raw = kept[comp] if 0 <= comp < len(kept) else comp
            path = f"{path}[{raw}]"
            node = node[raw] if 0 <= raw < len(node) else None
        elif isinstance(node, dict) and comp in node:
            path = join(path, comp)
            node = node[comp]
        elif isinstance(node, dict) and j == len(loc) - 1 and error_type == "missing":
            path = join(path, comp)
            node = None
    return path


def add_validation_errors(
    findings: Findings, code: str, base: str, node: Any, error: ValidationError, prefix: str = ""
) -> list[tuple[str, str]]:
    out = []
    for err in error.errors():
        path = loc_path(base, node, tuple(err.get("loc", ())), err.get("type", ""))
        message = prefix + err.get("msg", "invalid")
        if err.get("type") not in ("missing", "extra_forbidden") and "input" in err:
            shown = err["input"]
            field = next((c for c in reversed(tuple(err.get("loc", ()))) if isinstance(c, str)), "")
            if SECRET_NAME.search(field):
                message += " (value not shown)"
            elif not isinstance(shown, (dict, list)):
                message += f" (got {shown!r})"
        out.append((path, message))
        findings.add(code, path, message)
    return out


# --- walking pydantic models next to the data ---------------------------------------

_ADAPTERS: dict[Any, TypeAdapter[Any]] = {}


def unwrap(tp: Any) -> Any:
    while True:
        if isinstance(tp, typing.TypeAliasType):
            tp = tp.__value__
        elif typing.get_origin(tp) is typing.Annotated:
            tp = typing.get_args(tp)[0]
        else:
            return tp


def is_model(tp: Any) -> bool:
    return inspect.isclass(tp) and issubclass(tp, BaseModel)


def accepted_keys(cls: type[BaseModel]) -> dict[str, str]:
    """Input key -> field name, as pydantic validates this model."""
    config = cls.model_config
    by_name = bool(config.get("populate_by_name") or config.get("validate_by_name"))
    by_alias = config.get("validate_by_alias", True) is not False
    keys: dict[str, str] = {}
    for name, field in cls.model_fields.items():
        aliases: list[str] = []
        alias = field.validation_alias if field.validation_alias is not None else field.alias
        if isinstance(alias, str):
            aliases = [alias]
        elif isinstance(alias, AliasChoices):
            for choice in alias.choices:
                if isinstance(choice, str):
                    aliases.append(choice)
                elif isinstance(choice, AliasPath) and choice.path and isinstance(choice.path[0], str):
                    aliases.append(choice.path[0])
        elif isinstance(alias, AliasPath) and alias.path and isinstance(alias.path[0], str):
            aliases = [alias.path[0]]
        if aliases and by_alias:
            for a in aliases:
                keys[a] = name
        if not aliases or by_name:
            keys[name] = name
    return keys


def validates(tp: Any, data: Any) -> bool:
    adapter = _ADAPTERS.get(tp)
    if adapter is None:
        adapter = _ADAPTERS[tp] = TypeAdapter(tp)
    try:
        adapter.validate_python(data)
        return True
    except Exception:
        return False


def run_before_validators(cls: type[BaseModel], data: dict[str, Any]) -> dict[str, Any]:
    """Applies the model's mode="before" validators, which may rewrite keys before
    pydantic reads them (ogx 1.4.1 and 1.5.0: ServerStoresConfig._migrate_kv_to_sql
    turns a KV-shaped prompts/connectors store into a SQL one, kv_X -> sql_X)."""
    for name, decorator in cls.__pydantic_decorators__.model_validators.items():
        if decorator.info.mode != "before":
            continue
        try:
            result = getattr(cls, name)(dict(data))
        except Exception:
            continue  # pydantic reports what the validator refuses
        if isinstance(result, dict):
            data = result
    return data


def literal_match(cls: type[BaseModel], data: dict[str, Any]) -> bool:
    for key, name in accepted_keys(cls).items():
        tp = unwrap(cls.model_fields[name].annotation)
        if typing.get_origin(tp) is typing.Literal and key in data:
            values = {getattr(v, "value", v) for v in typing.get_args(tp)}
            if data[key] in values:
                return True
    return False


class Walker:
    """Reports keys pydantic silently drops, and checks every KV/SQL store
    reference met on the way against storage.backends."""

    def __init__(self, findings: Findings, backends: dict[str, str], top_extra: set[str]) -> None:
        self.findings = findings
        self.backends = backends
        self.top_extra = top_extra

    def walk(self, tp: Any, data: Any, path: str, owner: str = "") -> None:
        tp = unwrap(tp)
        origin = typing.get_origin(tp)
        if origin in (typing.Union, types.UnionType):
            member = self.choose(tp, data)
            if member is not None:
                self.walk(member, data, path, owner)
            return
        if origin in (list, tuple, set, frozenset) or tp in (list, tuple, set):
            args = typing.get_args(tp)
            if isinstance(data, list) and args:
                for i, item in enumerate(data):
                    if item is not DROPPED:
                        self.walk(args[0], item, f"{path}[{i}]", owner)
            return
        if origin is dict:
            args = typing.get_args(tp)
            if isinstance(data, dict) and len(args) == 2:
                for key, value in data.items():
                    self.walk(args[1], value, join(path, key), owner)
            return
        if is_model(tp) and isinstance(data, dict):
            self.walk_model(tp, data, path, owner)

    def choose(self, union: Any, data: Any) -> Any:
        members = [unwrap(m) for m in typing.get_args(union) if m is not type(None)]
        if isinstance(data, dict):
            shaped = [m for m in members if is_model(m) or typing.get_origin(m) is dict]
        elif isinstance(data, list):
            shaped = [m for m in members if typing.get_origin(m) in (list, tuple, set)]
        else:
            return None
        if len(shaped) <= 1:
            return shaped[0] if shaped else None
        models = [m for m in shaped if is_model(m)]
        for m in models:
            if validates(m, compact(data)):
                return m
        for m in models:
            if literal_match(m, data):
                return m
        if models:
            return min(models, key=lambda m: len(set(data) - set(accepted_keys(m))))
        return shaped[0]

    def walk_model(self, cls: type[BaseModel], data: dict[str, Any], path: str, owner: str) -> None:
        data = run_before_validators(cls, data)
        if issubclass(cls, KVStoreReference):
            self.check_reference("kv", data, path)
        elif issubclass(cls, SqlStoreReference):
            self.check_reference("sql", data, path)
        keys = accepted_keys(cls)
        extra = cls.model_config.get("extra")
        for key, value in data.items():
            name = keys.get(key)
            if name is None:
                if cls is StackConfig and key in self.top_extra:
                    continue
                if extra in ("allow", "forbid"):
                    continue  # kept as is, or already a pydantic error
                where = f"{cls.__name__}{f' ({owner})' if owner else ''}"
                aliases = sorted(k for k, n in keys.items() if n == key)
                hint = (
                    f"'{key}' is the field's Python name; it is read only from {', '.join(repr(a) for a in aliases)}. "
                    if key in cls.model_fields and aliases
                    else ""
                )
                self.findings.add(
                    "unknown-key",
                    join(path, key),
                    f"'{key}' is not a field of {where} in {PRODUCT}; pydantic drops it silently. "
                    f"{hint}Known keys: {', '.join(sorted(keys)) or '(none)'}",
                )
                continue
            self.walk(cls.model_fields[name].annotation, value, join(path, key), owner)

    def check_reference(self, kind: str, data: dict[str, Any], path: str, note: str = "") -> None:
        backend = data.get("backend")
        if not isinstance(backend, str):
            return
        where = join(path, "backend") if not note else path
        if backend not in self.backends:
            self.findings.add(
                "store-backend-missing",
                where,
                f"{note}names storage backend '{backend}', which storage.backends does not define "
                f"(defined: {', '.join(sorted(self.backends)) or 'none'})",
            )
        elif not self.backends[backend].startswith(kind + "_"):
            self.findings.add(
                "store-backend-kind",
                where,
                f"{note}is a {kind.upper()} store reference but backend '{backend}' is of type "
                f"{self.backends[backend]}; it needs a {kind}_* backend",
            )


# --- the checks ---------------------------------------------------------------------


def backend_types(storage: Any) -> tuple[dict[str, str], Any]:
    """Backend name -> type, and the effective stores, as the library builds them."""
    if storage is None or isinstance(storage, dict):
        try:
            built = StorageConfig(**(storage or {}))
            return {name: str(getattr(cfg.type, "value", cfg.type)) for name, cfg in built.backends.items()}, built.stores
        except Exception:
            pass
    backends: dict[str, str] = {}
    if isinstance(storage, dict) and isinstance(storage.get("backends"), dict):
        for name, cfg in storage["backends"].items():
            if isinstance(cfg, dict):
                backends[name] = str(cfg.get("type"))
    return backends, None


def reference_kind(annotation: Any) -> str | None:
    tp = unwrap(annotation)
    members = typing.get_args(tp) if typing.get_origin(tp) in (typing.Union, types.UnionType) else (tp,)
    for m in members:
        m = unwrap(m)
        if is_model(m) and issubclass(m, KVStoreReference):
            return "kv"
        if is_model(m) and issubclass(m, SqlStoreReference):
            return "sql"
    return None


def check_default_stores(walker: Walker, storage: Any, stores: Any) -> None:
    """Store references the YAML does not write take the library's defaults
    (e.g. `connectors` -> kv_default): those must resolve too."""
    written = storage.get("stores") if isinstance(storage, dict) else None
    written = written if isinstance(written, dict) else {}
    if stores is None:
        return
    for name, field in ServerStoresConfig.model_fields.items():
        if name in written:
            continue
        ref = getattr(stores, name, None)
        kind = reference_kind(field.annotation)
        if ref is None or kind is None:
            continue
        walker.check_reference(
            kind,
            {"backend": ref.backend},
            join("storage.stores", name),
            note="not set, so the default reference applies, which ",
        )


def enabled_providers(mirror: dict[str, Any]) -> dict[str, list[tuple[int, dict[str, Any]]]]:
    out: dict[str, list[tuple[int, dict[str, Any]]]] = {}
    providers = mirror.get("providers")
    if not isinstance(providers, dict):
        return out
    for api, entries in providers.items():
        if not isinstance(entries, list):
            continue
        for i, entry in enumerate(entries):
            if entry is DROPPED or not isinstance(entry, dict):
                continue
            pid = entry.get("provider_id")
            if not pid or pid == "__disabled__":
                continue
            out.setdefault(str(api), []).append((i, entry))
    return out


def check_apis(findings: Findings, mirror: dict[str, Any], enabled: dict[str, list[tuple[int, dict[str, Any]]]]) -> set[str]:
    """API names under `providers` and in `apis`; returns the APIs the server
    would have an implementation for (what dependencies and routes can use)."""
    providers = mirror.get("providers") if isinstance(mirror.get("providers"), dict) else {}
    for api in providers:
        path = join("providers", api)
        if api not in ALL_APIS:
            findings.add(
                "unknown-api",
                path,
                f"'{api}' is not an API of {PRODUCT} (providable: {', '.join(sorted(REGISTRY))}); "
                "the server refuses to start",
            )
        elif api in ROUTER_OF_TABLE:
            findings.add(
                "unknown-api",
                path,
                f"'{api}' is a routing table, provided automatically with '{ROUTER_OF_TABLE[api]}'; "
                "the server refuses to start when it is configured",
            )
        elif api not in REGISTRY:
            findings.add(
                "unknown-api",
                path,
                f"'{api}' is an internal API that is always on and takes no providers (providable: "
                f"{', '.join(sorted(REGISTRY))})",
            )

    listed = [a for a in mirror.get("apis") or [] if a is not DROPPED] if isinstance(mirror.get("apis"), list) else []
    listed_set = {a for a in listed if isinstance(a, str)}
    with_providers = {api for api in enabled if api in REGISTRY}
    if listed_set:
        resolver_apis = listed_set
    else:
        resolver_apis = set(ROUTER_APIS) | set(ROUTER_OF_TABLE) | {a for a in providers if a in REGISTRY}
    available = set(INTERNAL_APIS)
    available |= {api for api in with_providers if api not in ROUTER_APIS}
    for router in ROUTER_APIS:
        if router in resolver_apis:
            available |= {router, TABLE_OF_ROUTER[router]}

    if isinstance(mirror.get("apis"), list):
        for i, api in enumerate(mirror["apis"]):
            path = f"apis[{i}]"
            if api is DROPPED:
                continue
            if not isinstance(api, str) or api not in ALL_APIS:
                findings.add(
                    "unknown-api",
                    path,
                    f"'{api}' is not an API of {PRODUCT}; the server fails at startup",
                )
            elif api not in available:
                effect = (
                    f"{PRODUCT} skips it with a warning, so it is not served"
                    if APIS_TO_SERVE_SKIPS
                    else "the server fails at startup building its routes"
                )
                findings.add(
                    "api-without-provider",
                    path,
                    f"'{api}' is listed in apis but nothing implements it (no enabled provider"
                    f"{'' if api not in ROUTER_OF_TABLE else ', and its router API ' + repr(ROUTER_OF_TABLE[api]) + ' is not listed'}); "
                    f"{effect}",
                )
            elif api in ROUTER_APIS and api not in with_providers:
                findings.add(
                    "api-without-provider",
                    path,
                    f"'{api}' is listed in apis but has no enabled provider; it would be served with nothing behind it",
                )
        # ogx 1.5: an explicit empty list serves no provider-backed API (before: all of them).
        authoritative = bool(listed_set) or APIS_TO_SERVE_SKIPS
        for api in sorted(with_providers):
            if authoritative and api not in listed_set:
                effect = (
                    "its providers are instantiated but no router serves them, and nothing can depend on it"
                    if api in ROUTER_APIS
                    else "its providers are instantiated (usable as a dependency) but it gets no routes"
                )
                findings.add(
                    "api-not-served",
                    join("providers", api),
                    f"'{api}' has enabled providers but is not listed in apis; {effect}",
                )
    return available


def external_spec(findings: Findings, api: str, ptype: str, module: str, path: str) -> Any:
    """An external provider's spec, loaded the way the release loads it at startup
    (<module>.core.distribution.get_external_providers_from_module imports
    <module>.provider and calls get_provider_spec); None, with a finding, when it fails."""
    config = types.SimpleNamespace(providers={api: [types.SimpleNamespace(module=module, provider_type=ptype)]})
    try:
        registry = ls_distribution.get_external_providers_from_module({Api(api): {}}, config, False)
    except Exception as e:
        findings.add("external-provider-unavailable", path, f"{type(e).__name__}: {e}")
        return None
    spec = registry[Api(api)].get(ptype)
    if spec is None:
        findings.add("external-provider-unavailable", path, f"module {module} has no provider spec for {ptype}")
        return None
    # At startup the release imports the module the spec names and calls this on it.
    entry = "get_adapter_impl" if isinstance(spec, RemoteProviderSpec) else "get_provider_impl"
    try:
        impl = importlib.import_module(spec.module)
    except Exception as e:
        findings.add("external-provider-unavailable", path, f"{type(e).__name__} importing {spec.module}: {e}")
        return spec
    if not callable(getattr(impl, entry, None)):
        findings.add(
            "external-provider-unavailable",
            path,
            f"module {spec.module} (named by the spec of {ptype}) has no {entry}(): the server cannot start it",
        )
    return spec


def check_providers(
    findings: Findings,
    walker: Walker,
    mirror: dict[str, Any],
    enabled: dict[str, list[tuple[int, dict[str, Any]]]],
    available: set[str],
    vector_stores: Any,
    stores: Any,
) -> None:
    for api, entries in enabled.items():
        seen: dict[str, int] = {}
        for i, entry in entries:
            base = f"providers.{api}[{i}]"
            pid = entry.get("provider_id")
            if isinstance(pid, str) and pid in seen:
                findings.add(
                    "provider-id-duplicate",
                    join(base, "provider_id"),
                    f"provider_id '{pid}' is already used by providers.{api}[{seen[pid]}] in this API; "
                    "the server keeps only the last one",
                )
            elif isinstance(pid, str):
                seen[pid] = i
            if api not in REGISTRY:
                continue  # reported by check_apis
            ptype = entry.get("provider_type")
            spec = REGISTRY[api].get(ptype) if isinstance(ptype, str) else None
            module = entry.get("module")
            if isinstance(module, str) and isinstance(ptype, str):
                spec = external_spec(findings, api, ptype, module, join(base, "module"))
                if spec is None:
                    continue
            if spec is None:
                findings.add(
                    "unknown-provider-type",
                    join(base, "provider_type"),
                    f"'{ptype}' is not a provider type of API '{api}' in {PRODUCT} "
                    f"(valid: {', '.join(sorted(REGISTRY[api]))}); the server refuses to start",
                )
                continue
            if getattr(spec, "deprecation_error", None):
                findings.add("provider-deprecated", join(base, "provider_type"), str(spec.deprecation_error))
            for dep in getattr(spec, "api_dependencies", []) or []:
                if dep.value not in available:
                    findings.add(
                        "api-dependency-missing",
                        join(base, "provider_type"),
                        f"{ptype} needs the '{dep.value}' API, which nothing in this config provides; "
                        "the server fails at startup (required dependency not available)",
                    )
            config = entry.get("config", {})
            if config is None:
                config = {}
            if not isinstance(config, dict):
                continue  # StackConfig reports it
            check_provider_config(
                findings, walker, api, ptype, spec, compact(config), config, join(base, "config"), vector_stores, stores
            )


def check_provider_config(
    findings: Findings,
    walker: Walker,
    api: str,
    ptype: str,
    spec: Any,
    config: dict[str, Any],
    mirror_config: dict[str, Any],
    path: str,
    vector_stores: Any,
    stores: Any,
) -> None:
    config_cls = instantiate_class_type(spec.config_class)
    values = dict(config)
    # The resolver injects the top-level vector_stores into inline providers
    # (ogx: into every provider) whose config has that field
    # (resolver.instantiate_provider).
    if (INJECTS_INTO_REMOTE or not isinstance(spec, RemoteProviderSpec)) and "vector_stores_config" in config_cls.model_fields:
        if vector_stores is not None:
            values["vector_stores_config"] = vector_stores
    # ogx: a missing metadata_store becomes storage.stores.vector_stores.
    if INJECTS_METADATA_STORE and "metadata_store" in config_cls.model_fields and values.get("metadata_store") is None:
        default_store = getattr(stores, "vector_stores", None) if stores is not None else None
        if default_store is not None:
            values["metadata_store"] = default_store.model_dump()
    try:
        config_cls(**values)
    except ValidationError as e:
        add_validation_errors(findings, "provider-config-invalid", path, mirror_config, e)
    except Exception as e:  # validators that raise outside pydantic
        findings.add("provider-config-invalid", path, f"{type(e).__name__}: {e}")
    walker.walk(config_cls, mirror_config, path, owner=ptype)


def check_resources(
    findings: Findings,
    raw: dict[str, Any],
    mirror: dict[str, Any],
    enabled: dict[str, list[tuple[int, dict[str, Any]]]],
    available: set[str],
    all_ids: dict[str, dict[str, str]],
) -> None:
    resources = mirror.get("registered_resources")
    raw_resources = raw.get("registered_resources") if isinstance(raw.get("registered_resources"), dict) else {}
    if not isinstance(resources, dict):
        return
    for category, entries in resources.items():
        if not isinstance(entries, list):
            continue
        live = [e for e in entries if e is not DROPPED]
        path = join("registered_resources", category)
        if category not in RESOURCE_TABLES:
            if category in _registered_resource_fields() and live:
                findings.add(
                    "resource-ignored",
                    path,
                    f"{PRODUCT} accepts registered_resources.{category} but never registers it "
                    "(the list is emptied with a DeprecationWarning; tool groups come from tool_runtime providers)",
                )
            continue
        table = RESOURCE_TABLES[category]
        router = ROUTER_OF_TABLE.get(table, table)
        if live and table not in available:
            findings.add(
                "resource-api-missing",
                path,
                f"the '{router}' API is not served, so Llama Stack never registers these {category}",
            )
            continue
        ids = {pid for _, e in enabled.get(router, []) for pid in [e.get("provider_id")] if isinstance(pid, str)}
        raw_entries = raw_resources.get(category) if isinstance(raw_resources.get(category), list) else []
        has_provider_field = "provider_id" in _resource_input_fields(category)
        for i, entry in enumerate(entries):
            if entry is DROPPED or not isinstance(entry, dict):
                continue
            entry_path = f"{path}[{i}]"
            if not has_provider_field:
                # No provider_id in the input model: the routing table picks one.
                inferred = infer_dataset_provider(entry) if category == "datasets" else None
                if inferred is not None and inferred not in ids:
                    findings.add(
                        "resource-provider-missing",
                        entry_path,
                        f"Llama Stack assigns this {category[:-1]} to provider '{inferred}' (inferred from its "
                        f"source), which is not an enabled {router} provider (enabled: {', '.join(sorted(ids)) or 'none'}); "
                        "registering it fails at startup",
                    )
                continue
            pid = entry.get("provider_id")
            raw_pid = raw_entries[i].get("provider_id") if i < len(raw_entries) and isinstance(raw_entries[i], dict) else None
            if not pid or pid == "__disabled__":
                if isinstance(raw_pid, str) and "${env." in raw_pid:
                    continue  # switched off on purpose by a conditional provider_id
                findings.add(
                    "resource-without-provider",
                    entry_path,
                    "has no provider_id; Llama Stack skips registering it (register_resources ignores entries "
                    "without a provider)",
                )
                continue
            if pid == "all" and MODELS_ON_ALL:
                if category != "models":
                    findings.add(
                        "resource-provider-missing",
                        join(entry_path, "provider_id"),
                        f"provider_id 'all' is only supported for models; {PRODUCT} skips this {category[:-1]} "
                        "with a warning",
                    )
                    continue
                if not ids:
                    findings.add(
                        "resource-provider-missing",
                        join(entry_path, "provider_id"),
                        "provider_id 'all' registers the model on the first enabled inference provider, and there "
                        f"is none; {PRODUCT} skips it with a warning",
                    )
                    continue
            elif pid not in ids:
                elsewhere = [a for a, by_id in all_ids.items() if pid in by_id and a != router]
                disabled = pid in all_ids.get(router, {}) and all_ids[router][pid] == "disabled"
                hint = ""
                if disabled:
                    hint = f"; '{pid}' is a {router} provider whose provider_id resolves empty (disabled)"
                elif elsewhere:
                    hint = f"; '{pid}' is a provider of {', '.join(elsewhere)}, not {router}"
                findings.add(
                    "resource-provider-missing",
                    join(entry_path, "provider_id"),
                    f"'{pid}' is not an enabled {router} provider (enabled: {', '.join(sorted(ids)) or 'none'}){hint}; "
                    "registering it fails at startup",
                )
            if category == "models" and entry.get("model_type") == "embedding":
                metadata = entry.get("metadata")
                if not isinstance(metadata, dict) or "embedding_dimension" not in metadata:
                    effect = (
                        f"registering the 'all' alias fails and {PRODUCT} skips it with a warning"
                        if pid == "all" and MODELS_ON_ALL
                        else "registering it fails at startup"
                    )
                    findings.add(
                        "resource-invalid",
                        join(entry_path, "metadata"),
                        f"an embedding model needs metadata.embedding_dimension; {effect}",
                    )


def _resource_input_fields(category: str) -> set[str]:
    annotation = unwrap(StackConfig.model_fields["registered_resources"].annotation)
    field = annotation.model_fields.get(category) if is_model(annotation) else None
    item = typing.get_args(unwrap(field.annotation)) if field is not None else ()
    return set(unwrap(item[0]).model_fields) if item and is_model(unwrap(item[0])) else set()


def infer_dataset_provider(entry: dict[str, Any]) -> str | None:
    """DatasetsRoutingTable.register_dataset: metadata.provider_id, else rows ->
    localfs, huggingface URIs -> huggingface, other URIs -> localfs."""
    metadata = entry.get("metadata")
    if isinstance(metadata, dict) and metadata.get("provider_id"):
        return str(metadata["provider_id"])
    source = entry.get("source")
    if not isinstance(source, dict):
        return None
    if source.get("type") == "rows":
        return "localfs"
    if source.get("type") == "uri":
        return "huggingface" if str(source.get("uri", "")).startswith("huggingface") else "localfs"
    return None


def _registered_resource_fields() -> set[str]:
    annotation = unwrap(StackConfig.model_fields["registered_resources"].annotation)
    return set(annotation.model_fields) if is_model(annotation) else set()


def provider_ids_by_api(raw_providers: Any, mirror: dict[str, Any]) -> dict[str, dict[str, str]]:
    """API -> provider id -> 'enabled' | 'disabled' (conditional ids count by the
    id they would take, e.g. ${env.X:+vllm} -> vllm)."""
    out: dict[str, dict[str, str]] = {}
    providers = mirror.get("providers")
    if not isinstance(providers, dict) or not isinstance(raw_providers, dict):
        return out
    for api, entries in providers.items():
        raw_entries = raw_providers.get(api)
        if not isinstance(entries, list) or not isinstance(raw_entries, list):
            continue
        for i, entry in enumerate(entries):
            raw_entry = raw_entries[i] if i < len(raw_entries) else None
            if not isinstance(raw_entry, dict):
                continue
            pid = entry.get("provider_id") if isinstance(entry, dict) else None
            if pid and pid != "__disabled__":
                out.setdefault(api, {})[str(pid)] = "enabled"
                continue
            raw_pid = raw_entry.get("provider_id")
            match = re.search(r"\$\{env\.[A-Z0-9_]+:\+([^}]*)\}", raw_pid) if isinstance(raw_pid, str) else None
            if match and match.group(1):
                out.setdefault(api, {}).setdefault(match.group(1), "disabled")
    return out


def check_server(findings: Findings, server: Any) -> None:
    """What the server refuses after the parse: `ogx stack run` without TLS or
    `insecure` (ogx 1.2+), and create_app's validate_auth_security."""
    if not (STRICT_TLS or AUTH_VERIFY_TLS_FATAL or AUTH_LOCAL_KEY_NOT_MULTI):
        return
    if server is None:
        server = {}
    if not isinstance(server, dict):
        return  # StackConfig reports it
    try:
        config = _SERVER_CONFIG(**compact(server))
    except Exception:
        return  # StackConfig reports it
    if STRICT_TLS and not (config.tls_certfile and config.tls_keyfile) and not config.insecure:
        have = [f for f in ("tls_certfile", "tls_keyfile") if getattr(config, f)]
        detail = f"only {have[0]} is set" if have else "no tls_certfile/tls_keyfile"
        findings.add(
            "tls-required",
            "server",
            f"{detail} and no `insecure: true`; {CLI} exits with \"TLS required: set tls_certfile/tls_keyfile in "
            "server config or pass '--insecure' to disable.\" (set server.insecure: true to serve plain HTTP)",
        )
    auth = config.auth
    provider_config = getattr(auth, "provider_config", None) if auth is not None else None
    if provider_config is None:
        return
    kind = getattr(provider_config, "type", None)
    kind = getattr(kind, "value", kind)
    mode = getattr(getattr(config, "tenancy", None), "mode", None)
    mode = getattr(mode, "value", mode)
    if AUTH_LOCAL_KEY_NOT_MULTI and kind == "local_api_key" and mode == "multi":
        findings.add(
            "auth-refused",
            "server.tenancy.mode",
            "server.auth.provider_config.type is 'local_api_key', which resolves no tenant IDs, but tenancy mode is "
            "'multi'; the server exits at startup (use tenancy mode 'single' or 'disabled', or another auth provider)",
        )
    if AUTH_VERIFY_TLS_FATAL and getattr(provider_config, "verify_tls", True) is False and not config.insecure:
        findings.add(
            "auth-refused",
            "server.auth.provider_config.verify_tls",
            "verify_tls: false in the auth provider config without server.insecure: true; the server exits at "
            "startup (\"FATAL: verify_tls=False in auth provider config\")",
        )


def check_defaults(
    findings: Findings,
    mirror: dict[str, Any],
    enabled: dict[str, list[tuple[int, dict[str, Any]]]],
    available: set[str],
) -> None:
    def ids(api: str) -> set[str]:
        return {str(e.get("provider_id")) for _, e in enabled.get(api, [])}

    vs = mirror.get("vector_stores")
    if isinstance(vs, dict):
        default = vs.get("default_provider_id")
        if isinstance(default, str) and default and default not in ids("vector_io"):
            findings.add(
                "default-provider-missing",
                "vector_stores.default_provider_id",
                f"'{default}' is not an enabled vector_io provider (enabled: {', '.join(sorted(ids('vector_io'))) or 'none'})",
            )
        for key in ("default_embedding_model", "default_reranker_model"):
            check_qualified_model(findings, vs.get(key), join("vector_stores", key), ids("inference"), available)
        for key in ("rewrite_query_params", "contextual_retrieval_params"):
            params = vs.get(key)
            if isinstance(params, dict):
                check_qualified_model(
                    findings, params.get("model"), f"vector_stores.{key}.model", ids("inference"), available
                )

    safety = mirror.get("safety") if "safety" in StackConfig.model_fields else None
    if isinstance(safety, dict) and isinstance(safety.get("default_shield_id"), str) and safety["default_shield_id"]:
        shield = safety["default_shield_id"]
        if "shields" not in available or "safety" not in available:
            findings.add(
                "default-shield-missing",
                "safety.default_shield_id",
                f"default shield '{shield}' needs the safety API, which is not served; the server fails at startup",
            )
        else:
            resources = mirror.get("registered_resources")
            shields = resources.get("shields") if isinstance(resources, dict) else None
            registered = {
                s.get("shield_id")
                for s in (shields or [])
                if isinstance(s, dict) and s.get("provider_id") and s.get("provider_id") in ids("safety")
            }
            if registered and shield not in registered:
                findings.add(
                    "default-shield-missing",
                    "safety.default_shield_id",
                    f"default shield '{shield}' is not among the registered shields ({', '.join(sorted(map(str, registered)))}); "
                    "the server fails at startup",
                )


def check_qualified_model(findings: Findings, model: Any, path: str, inference_ids: set[str], available: set[str]) -> None:
    if not isinstance(model, dict) or not isinstance(model.get("provider_id"), str):
        return
    pid = model["provider_id"]
    if "models" not in available:
        findings.add(
            "default-provider-missing",
            join(path, "provider_id"),
            f"'{pid}/{model.get('model_id')}' needs the models API, which is not served (inference is not listed)",
        )
    elif pid not in inference_ids:
        findings.add(
            "default-provider-missing",
            join(path, "provider_id"),
            f"'{pid}' is not an enabled inference provider (enabled: {', '.join(sorted(inference_ids)) or 'none'}), "
            f"so model '{pid}/{model.get('model_id')}' cannot exist",
        )


def validate_text(text: str, env: dict[str, str]) -> list[dict[str, str]]:
    findings = Findings()
    try:
        raw = yaml.safe_load(text)
    except yaml.YAMLError as e:
        findings.add("yaml-invalid", "", f"not valid YAML: {e}")
        return findings.items
    if not isinstance(raw, dict):
        findings.add("stack-config-invalid", "", f"the config must be a YAML mapping, got {type(raw).__name__}")
        return findings.items

    env = {str(k): str(v) for k, v in env.items()}
    with environment(env), warnings.catch_warnings():
        warnings.simplefilter("ignore")
        # What parse_and_maybe_upgrade_config does before substitution.
        raw = copy.deepcopy(raw)
        if "routing_table" in raw:
            raw = upgrade_from_routing_table(raw)
        for rewrite in PRE_SUBSTITUTION_REWRITES:
            try:
                rewrite(raw)
            except Exception:
                pass  # the real parse below fails on the same input and reports it
        raw["version"] = RUN_CONFIG_VERSION
        expander = Expander()
        mirror = expander.expand(copy.deepcopy(raw))
        unset_paths = []
        for var, path in expander.unset:
            unset_paths.append(path)
            findings.add(
                "env-unset",
                path,
                f"${{env.{var}}} has no default and {var} is not set; {CLI} aborts with EnvVarError",
            )
        os.environ.update(expander.placeholders)

        # The real top-level parse (`llama stack run` / `ogx stack run`), on the YAML as written.
        try:
            parse_and_maybe_upgrade_config(copy.deepcopy(raw))
        except EnvVarError as e:
            findings.add("env-unset", e.path, str(e))
        except ValidationError as e:
            add_validation_errors(findings, "stack-config-invalid", "", mirror, e)
        except Exception as e:
            findings.add("stack-config-invalid", "", f"{type(e).__name__}: {e}")

        # Self-check: the mirror must equal what the library substitutes.
        if compact(mirror) != replace_env_vars(copy.deepcopy(raw)):
            findings.add(
                "validator-mismatch",
                "",
                f"validate.py's env substitution differs from {MODULE}'s replace_env_vars; fix validate.py",
            )

        backends, stores = backend_types(compact(mirror.get("storage")))
        walker = Walker(findings, backends, EXTRA_TOP_LEVEL_KEYS)
        walker.walk(StackConfig, mirror, "")
        check_default_stores(walker, mirror.get("storage"), stores)
        check_server(findings, mirror.get("server"))

        enabled = enabled_providers(mirror)
        available = check_apis(findings, mirror, enabled)
        vector_stores = None
        if isinstance(mirror.get("vector_stores"), dict):
            annotation = StackConfig.model_fields["vector_stores"].annotation
            try:
                vector_stores = TypeAdapter(annotation).validate_python(compact(mirror["vector_stores"]))
            except Exception:
                vector_stores = None
        check_providers(findings, walker, mirror, enabled, available, vector_stores, stores)
        all_ids = provider_ids_by_api(raw.get("providers"), mirror)
        check_resources(findings, raw, mirror, enabled, available, all_ids)
        check_defaults(findings, mirror, enabled, available)

    # The library's own store check (a model validator without a location)
    # says the same as store-backend-*; keep it only if ours found nothing.
    ours = any(f["code"].startswith("store-backend-") for f in findings.items)
    kept = []
    for f in findings.items:
        if f["code"] == "stack-config-invalid" and f["path"] == "" and "references" in f["message"] and "backend" in f["message"]:
            if ours:
                continue
            f = {**f, "path": "storage.stores"}
        if f["code"] in ("stack-config-invalid", "provider-config-invalid") and any(
            f["path"] == p or f["path"].startswith(p + ".") or f["path"].startswith(p + "[") for p in unset_paths
        ):
            continue  # caused by the placeholder standing in for an unset variable
        kept.append(f)
    return sorted(kept, key=lambda f: (f["path"], f["code"], f["message"]))


def main(argv: list[str]) -> int:
    if len(argv) >= 2 and argv[1] == "--batch":
        items = json.load(sys.stdin)
        results: dict[str, Any] = {}
        for item in items:
            started = time.monotonic()
            text = item["configYaml"] if "configYaml" in item else open(item["configPath"]).read()
            findings = validate_text(text, item.get("env") or {})
            results[item["name"]] = {"findings": findings, "seconds": round(time.monotonic() - started, 4)}
        _STDOUT.write(json.dumps({"release": RELEASE, "importSeconds": round(IMPORT_SECONDS, 3), "results": results}) + "\n")
        return 0
    if len(argv) in (2, 3):
        env = json.loads(argv[2]) if len(argv) == 3 else {}
        with open(argv[1]) as f:
            findings = validate_text(f.read(), env)
        _STDOUT.write(json.dumps({"findings": findings}, indent=1) + "\n")
        return 0
    sys.stderr.write(__doc__ or "")
    return 2


if __name__ == "__main__":
    try:
        sys.exit(main(sys.argv))
    except Exception:
        traceback.print_exc()
        sys.exit(1)
