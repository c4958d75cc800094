"""Builds the acme-echo wheel (test/llama-stack/external/acme_echo) with the
standard library only: the release venvs have pip but no build backend, and
the tests run offline. Usage: build_wheel.py <out dir>; prints the wheel's path.

acme-echo is a tiny external provider (remote::acme-echo for the inference
API) that forwards chat completions to its service and puts its prefix before
the answer. test/llama-stack/external.ts pip-installs the wheel into a temporary
directory at test time; the validator imports it through the release's own
loader (a provider entry with `module: acme_echo`) and external-boot.test.ts
serves it from real servers. It is never part of the hook's build or image.
"""

import base64
import hashlib
import sys
import zipfile
from pathlib import Path

NAME, VERSION = "acme_echo", "0.1.0"
DIST_INFO = f"{NAME}-{VERSION}.dist-info"
FILES = {
    f"{DIST_INFO}/METADATA": f"Metadata-Version: 2.1\nName: acme-echo\nVersion: {VERSION}\n",
    f"{DIST_INFO}/WHEEL": "Wheel-Version: 1.0\nGenerator: llsd-hook-tests\nRoot-Is-Purelib: true\nTag: py3-none-any\n",
}


def record_line(name: str, data: bytes) -> str:
    digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()
    return f"{name},sha256={digest},{len(data)}"


def main(out_dir: str) -> None:
    source = Path(__file__).parent / NAME
    entries = {f"{NAME}/{p.name}": p.read_bytes() for p in sorted(source.glob("*.py"))}
    entries.update({k: v.encode() for k, v in FILES.items()})
    record = "\n".join([*(record_line(k, v) for k, v in entries.items()), f"{DIST_INFO}/RECORD,,"]) + "\n"
    wheel = Path(out_dir) / f"{NAME}-{VERSION}-py3-none-any.whl"
    with zipfile.ZipFile(wheel, "w") as z:
        for name, data in entries.items():
            z.writestr(name, data)
        z.writestr(f"{DIST_INFO}/RECORD", record)
    print(wheel)


if __name__ == "__main__":
    main(sys.argv[1])
