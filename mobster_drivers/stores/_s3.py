"""The S3 path store (extra ``s3``: boto3): a team's paths in a bucket, under a prefix per project.

Rule 1 (layout): ``s3://BUCKET/PREFIX`` keeps a path as ``PREFIX/paths/<identity>-<env>.json`` and a
        document ``<kind>/<key>`` as ``PREFIX/<kind>/<key>``; a path set aside goes to
        ``PREFIX/aside/<name><suffix>`` (never listed).
Rule 2 (the conditional write): a create is ``PutObject`` with ``If-None-Match: *``, a replace
        ``PutObject`` with ``If-Match: <ETag read>``; ``412 Precondition Failed`` (the engine's
        compare-and-swap lost), ``409 ConditionalRequestConflict`` (AWS: a concurrent
        conditional write to the key) and ``404`` on a replace (the object is gone) are a loss,
        never an error. The tag is the ETag as S3 gives it.
Rule 3: the endpoint is the URL's ``?endpoint=`` (R2, MinIO, GCS's XML API, Ceph), else boto3's
        own (``AWS_ENDPOINT_URL_S3``, ``AWS_ENDPOINT_URL``, else AWS); ``?region=`` the region.
        Credentials are boto3's chain (the environment, a profile, an instance role), never the
        URL's; they are never printed.
Rule 4: a read past the size asked for is refused from the object's length, before its body is
        downloaded (:class:`UnsafeFile`, ``too_large``). A body that comes shorter than its length
        (the connection broke: botocore checks no length on a read of n bytes) is the store's
        failure (:class:`StoreUnavailable`), never a document: a half path is never read as a
        corrupt one that a run records over.
Rule 5: any other failure (no such bucket, access denied, the endpoint unreachable) is
        :class:`StoreUnavailable`: one line naming the store (its URL) and the fix, the boto3
        error as ``__cause__``. boto3 is imported when the store is first used.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from mobster_core.exceptions import Problem, StoreUnavailable, UnsafeFile
from mobster_core.paths import DOCUMENT_KINDS, Versioned, check_document_name

__all__ = ["S3Paths"]

_PATH = re.compile(r"([0-9a-f]{16})-([0-9a-f]{12})\.json")
_LOST = frozenset({"PreconditionFailed", "ConditionalRequestConflict", "NoSuchKey", "412", "409", "404"})


class S3Paths:
    """Rules 1-5: the path store in ``bucket`` under ``prefix``."""

    name = "s3"
    shared = True

    def __init__(
        self, bucket: str, prefix: str, *, endpoint: str | None = None, region: str | None = None, page_size: int = 1000
    ) -> None:
        self.bucket = bucket
        #: Keys a listing asks for a page (S3's most, 1,000; an engine may give fewer: pages are followed).
        self.page_size = page_size
        self.prefix = prefix.strip("/")
        self.endpoint = endpoint
        self.region = region
        self._client: Any = None

    @property
    def url(self) -> str:
        """The store as people name it (no credentials: they are never in it)."""
        return f"s3://{self.bucket}/{self.prefix}".rstrip("/")

    def _key(self, rest: str) -> str:
        return f"{self.prefix}/{rest}" if self.prefix else rest

    @property
    def client(self) -> Any:
        """boto3's S3 client, made at first use (Rule 5)."""
        if self._client is None:
            try:
                import boto3  # the extra is imported only when the store is used
                from botocore.config import Config
            except ImportError as exc:
                raise StoreUnavailable(
                    f"{self.url}: the S3 path store needs boto3: pip install 'mobster-replay[s3]'"
                ) from exc
            config = Config(retries={"max_attempts": 3, "mode": "standard"}, connect_timeout=10, read_timeout=30)
            self._client = boto3.client("s3", endpoint_url=self.endpoint, region_name=self.region, config=config)
        return self._client

    def _failed(self, what: str, exc: Exception) -> StoreUnavailable:
        code = _code(exc)
        said = f"{code}: " if code else ""
        detail = str(exc).splitlines()[0][:200] if str(exc) else type(exc).__name__
        fixes = {
            "NoSuchBucket": f"create the bucket {self.bucket}, or fix the paths setting",
            "AccessDenied": "give these credentials s3:GetObject, s3:PutObject, s3:DeleteObject and s3:ListBucket",
            "InvalidAccessKeyId": "check AWS_ACCESS_KEY_ID (or the profile) for this endpoint",
            "SignatureDoesNotMatch": "check AWS_SECRET_ACCESS_KEY (or the profile) for this endpoint",
        }
        fix = fixes.get(code, "check the endpoint, the credentials and the network")
        return StoreUnavailable(f"{self.url}: {what} failed ({said}{detail}); {fix}")

    def _call(self, what: str, method: str, **kwargs: Any) -> Any:
        try:
            return getattr(self.client, method)(Bucket=self.bucket, **kwargs)
        except StoreUnavailable:
            raise
        except Exception as exc:
            if _code(exc) in ("NoSuchKey", "404") and method in ("get_object", "head_object"):
                raise FileNotFoundError(self.url + "/" + kwargs.get("Key", "")) from exc
            raise self._failed(what, exc) from exc

    # -- bytes by key ------------------------------------------------------------------------------

    def _read(self, key: str, max_bytes: int) -> Versioned:
        got = self._call(f"reading {key}", "get_object", Key=key)
        body = got["Body"]
        size = int(got.get("ContentLength", 0))
        try:
            data = b"" if size > max_bytes else body.read(max_bytes + 1)
        except Exception as exc:
            raise self._failed(f"reading {key}", exc) from exc
        finally:
            body.close()
        if size > max_bytes:
            where = Path(f"{self.url}/{key}")
            raise UnsafeFile(where, f"it is {size} bytes, over {max_bytes}", problem=Problem.TOO_LARGE)
        if len(data) > max_bytes:
            raise UnsafeFile(Path(f"{self.url}/{key}"), f"it is over {max_bytes} bytes", problem=Problem.TOO_LARGE)
        if "ContentLength" in got and len(data) != size:  # Rule 4: botocore checks no length on a read of n bytes
            raise StoreUnavailable(
                f"{self.url}: reading {key} failed (the object came {len(data)} of its {size} bytes: the connection "
                "broke); check the network and run again"
            )
        return Versioned(bytes(data), str(got["ETag"]))

    def _write(self, key: str, data: bytes, expect: str | None) -> bool:
        condition = {"IfNoneMatch": "*"} if expect is None else {"IfMatch": expect}
        try:
            self.client.put_object(Bucket=self.bucket, Key=key, Body=data, ContentType="application/json", **condition)
        except StoreUnavailable:
            raise
        except Exception as exc:
            if _code(exc) in _LOST:
                return False  # Rule 2: the engine's compare-and-swap lost
            raise self._failed(f"writing {key}", exc) from exc
        return True

    def _delete(self, key: str) -> None:
        self._call(f"deleting {key}", "delete_object", Key=key)

    def _list(self, start: str) -> list[str]:
        keys: list[str] = []
        token: dict[str, str] = {}
        while True:
            page = self._call(
                f"listing {start}", "list_objects_v2", Prefix=self._key(start), MaxKeys=self.page_size, **token
            )
            keys.extend(str(item["Key"]) for item in page.get("Contents", ()))
            if not page.get("IsTruncated"):
                return keys
            token = {"ContinuationToken": str(page["NextContinuationToken"])}

    # -- the protocol ------------------------------------------------------------------------------

    def names(self, identity: str | None = None) -> list[tuple[str, str]]:
        """Every ``(identity, env)`` kept (of ``identity`` only), sorted."""
        start = self._key("paths/")
        found = []
        for key in self._list(f"paths/{identity or ''}"):
            m = _PATH.fullmatch(key[len(start) :])
            if m is not None and (identity is None or m.group(1) == identity):
                found.append((m.group(1), m.group(2)))
        return sorted(found)

    def read(self, identity: str, env: str, *, max_bytes: int) -> Versioned:
        """One path and its ETag."""
        return self._read(self._key(f"paths/{identity}-{env}.json"), max_bytes)

    def write(self, identity: str, env: str, data: bytes, *, expect: str | None = None) -> bool:
        """Rule 2."""
        return self._write(self._key(f"paths/{identity}-{env}.json"), data, expect)

    def remove(self, identity: str, env: str) -> None:
        """Forget one path (nothing when it is gone)."""
        self._delete(self._key(f"paths/{identity}-{env}.json"))

    def set_aside(self, identity: str, env: str, suffix: str) -> str:
        """Rule 1: copy the path under ``aside/`` and delete it."""
        name = f"{identity}-{env}.json{suffix}"
        source = self._key(f"paths/{identity}-{env}.json")
        self._call(
            f"setting {source} aside", "copy_object", Key=self._key(f"aside/{name}"),
            CopySource={"Bucket": self.bucket, "Key": source},
        )  # fmt: skip
        self._delete(source)
        return f"{self.url}/aside/{name}"

    def where(self, identity: str, env: str) -> str:
        """The object's URL."""
        return f"{self.url}/paths/{identity}-{env}.json"

    def documents(self, prefix: str) -> list[str]:
        """Documents whose names start with ``prefix``, sorted."""
        kind = prefix.partition("/")[0]
        if kind not in DOCUMENT_KINDS:
            raise ValueError(f"a document prefix starts with a kind ({', '.join(DOCUMENT_KINDS)}/), not {prefix!r}")
        start = self._key("")
        found = []
        for key in self._list(prefix):
            name = key[len(start) :]
            try:
                check_document_name(name)
            except ValueError:
                continue
            found.append(name)
        return sorted(found)

    def read_document(self, name: str, *, max_bytes: int) -> Versioned:
        """One document and its ETag."""
        check_document_name(name)
        return self._read(self._key(name), max_bytes)

    def write_document(self, name: str, data: bytes, *, expect: str | None = None) -> bool:
        """Rule 2."""
        check_document_name(name)
        return self._write(self._key(name), data, expect)

    def remove_document(self, name: str) -> None:
        """Forget one document."""
        check_document_name(name)
        self._delete(self._key(name))

    def where_document(self, name: str) -> str:
        """The object's URL."""
        check_document_name(name)
        return f"{self.url}/{name}"


def _code(exc: Exception) -> str:
    response = getattr(exc, "response", None)
    if isinstance(response, dict):
        error = response.get("Error", {})
        code = str(error.get("Code", "")) if isinstance(error, dict) else ""
        status = response.get("ResponseMetadata", {}).get("HTTPStatusCode")
        return code or (str(status) if status else "")
    return ""
