package main

import (
	"context"
	"fmt"
	"io"
)

func runInventory(context.Context, []string, io.Writer) error {
	return fmt.Errorf("inventory: not built yet")
}
func runVerify(context.Context, []string, io.Writer) error {
	return fmt.Errorf("verify: not built yet")
}
func runMerge(context.Context, []string, io.Writer) error { return fmt.Errorf("merge: not built yet") }
