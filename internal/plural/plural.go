// Package plural writes counts of things in English: "1 package", "2 packages", "3 entries".
package plural

import (
	"strconv"
	"strings"
)

// Of is n followed by the noun, in the plural unless n is 1.
func Of(n int, noun string) string {
	if n == 1 {
		return "1 " + noun
	}
	return strconv.Itoa(n) + " " + Noun(noun)
}

// Noun is the plural of a regular English noun (the last word of a phrase).
func Noun(s string) string {
	switch {
	case strings.HasSuffix(s, "y") && len(s) > 1 && !strings.ContainsRune("aeiou", rune(s[len(s)-2])):
		return s[:len(s)-1] + "ies"
	case strings.HasSuffix(s, "s"), strings.HasSuffix(s, "x"), strings.HasSuffix(s, "ch"), strings.HasSuffix(s, "sh"):
		return s + "es"
	}
	return s + "s"
}
