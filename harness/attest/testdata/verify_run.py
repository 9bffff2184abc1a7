"""Independent check of a signed run with the Python securesystemslib and in-toto-attestation
packages: verifies the DSSE signature with the given public key, validates the in-toto
Statement, and recomputes every file's sha256. Prints one JSON object; exit 0 unless the
arguments are wrong."""
import hashlib
import json
import os
import sys

from cryptography.hazmat.primitives import serialization
from google.protobuf import json_format
from in_toto_attestation.v1 import statement_pb2
from in_toto_attestation.v1.statement import Statement
from securesystemslib.dsse import Envelope
from securesystemslib.exceptions import VerificationError
from securesystemslib.signer import SSlibKey

SKIP = {"attestation.dsse.json", "attestation.pub.pem"}


def sha256_file(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for chunk in iter(lambda: f.read(1 << 20), b""):
            h.update(chunk)
    return h.hexdigest()


def main(run_dir, pub_path):
    with open(pub_path, "rb") as f:
        pub = serialization.load_pem_public_key(f.read())
    der = pub.public_bytes(serialization.Encoding.DER, serialization.PublicFormat.SubjectPublicKeyInfo)
    fingerprint = hashlib.sha256(der).hexdigest()
    key = SSlibKey.from_crypto(pub, keyid=fingerprint)
    with open(os.path.join(run_dir, "attestation.dsse.json")) as f:
        env = Envelope.from_dict(json.load(f))
    out = {"fingerprint": fingerprint, "payload_type": env.payload_type, "problems": []}
    try:
        accepted = env.verify([key], 1)
    except VerificationError as e:
        out["signature"] = "invalid: %s" % e
        print(json.dumps(out))
        return
    out["signature"] = "valid"
    out["accepted_keyids"] = sorted(accepted)
    st_pb = json_format.Parse(env.payload, statement_pb2.Statement())
    st = Statement.copy_from_pb(st_pb)
    st.validate()
    out["predicate_type"] = st.pb.predicate_type
    out["run_id"] = st.pb.predicate["run_id"]
    signed = {s.name: s.digest["sha256"] for s in st.pb.subject}
    out["subjects"] = len(signed)
    on_disk = {}
    for root, _, files in os.walk(run_dir):
        for name in files:
            rel = os.path.relpath(os.path.join(root, name), run_dir).replace(os.sep, "/")
            if rel not in SKIP:
                on_disk[rel] = sha256_file(os.path.join(root, name))
    for rel in sorted(set(signed) | set(on_disk)):
        if rel not in signed:
            out["problems"].append(rel + ": added")
        elif rel not in on_disk:
            out["problems"].append(rel + ": removed")
        elif signed[rel] != on_disk[rel]:
            out["problems"].append(rel + ": changed")
    print(json.dumps(out))


if __name__ == "__main__":
    if len(sys.argv) != 3:
        sys.exit("usage: verify_run.py RUN_DIR PUBLIC_KEY_PEM")
    main(sys.argv[1], sys.argv[2])
