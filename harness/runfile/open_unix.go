//go:build unix

package runfile

import "syscall"

// openFlags open a file without following a final link and without blocking: a FIFO swapped in
// after the Lstat would otherwise block the open until a writer comes.
const openFlags = syscall.O_NOFOLLOW | syscall.O_NONBLOCK
