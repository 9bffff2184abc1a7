"""Contract double: the family e2e test. The double's pytest (pytest/__main__.py) runs it as
trtmc-native build + gate on the testcase; see ../../../README.md."""

# The family test's rules the double's pytest applies (pytest/__main__.py declared()): this family
# builds as whisper does, at tmp_path / manifest["bundle"], and needs no native build tree.
BUNDLE_AT = "tmp_path"
REQUIRES_ENV = ()
