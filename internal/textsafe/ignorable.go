package textsafe

import (
	"strconv"
	"unicode"
)

// DefaultIgnorable reports whether r has Unicode's Default_Ignorable_Code_Point property: a
// character a renderer shows as nothing at all when it does not support it, and many show as
// nothing anyway (U+034F COMBINING GRAPHEME JOINER, U+115F HANGUL CHOSEONG FILLER, U+3164 HANGUL
// FILLER, U+200B ZERO WIDTH SPACE, variation selectors, U+E0000–U+E0FFF tags...).
//
// Go's unicode package has no table of the derived property, so it is derived here exactly as
// Unicode's DerivedCoreProperties.txt derives it, from the contributory properties Go does have
// (at the Unicode version of the Go release that builds olmcat):
//
//	  Other_Default_Ignorable_Code_Point
//	+ Cf (Format characters)
//	+ Variation_Selector
//	- White_Space
//	- FFF9..FFFB (Interlinear annotation format characters)
//	- 13430..1343F (Egyptian hieroglyph format characters)
//	- Prepended_Concatenation_Mark (Exceptional format characters that should be visible)
func DefaultIgnorable(r rune) bool {
	switch {
	case r < 0xad: // below U+00AD SOFT HYPHEN, the first member: every ASCII character at no cost
		return false
	case r >= 0xfff9 && r <= 0xfffb, r >= 0x13430 && r <= 0x1343f,
		unicode.Is(unicode.White_Space, r), unicode.Is(unicode.Prepended_Concatenation_Mark, r):
		return false
	}
	return unicode.Is(unicode.Other_Default_Ignorable_Code_Point, r) || unicode.Is(unicode.Cf, r) ||
		unicode.Is(unicode.Variation_Selector, r)
}

// uEscape writes r as Go writes a rune it does not print: \u034f, \U000e0001.
func uEscape(r rune) string {
	if r > 0xffff {
		h := strconv.FormatUint(uint64(r)|1<<32, 16)
		return `\U` + h[len(h)-8:]
	}
	return `\u` + strconv.FormatUint(uint64(r)|1<<16, 16)[1:]
}
