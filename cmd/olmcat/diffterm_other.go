//go:build !unix

package main

import "os"

// terminalWidth is 0 where the width of a terminal is not read: tables then use their default.
func terminalWidth(*os.File) int { return 0 }
