// Package ci holds the checks of the files that run the suite on other engines: its test lints
// every GitHub Actions workflow in .github/workflows with actionlint (used as a Go library, so
// `make test` needs no downloaded binary) and shellcheck for the run: scripts.
package ci
