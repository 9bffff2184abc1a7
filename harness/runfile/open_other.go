//go:build !unix

package runfile

// openFlags: elsewhere the Lstat before the open is the only guard.
const openFlags = 0
