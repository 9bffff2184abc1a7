"""Contract double: the family e2e test. The double's pytest (pytest/__main__.py) runs it as
trtmc-native build + gate on the testcase; see ../../../README.md."""

# The family test's rules the double's pytest applies (pytest/__main__.py declared()).
BUNDLE_AT = "tmp_path"
REQUIRES_ENV = ()
