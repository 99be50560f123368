package property

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/olmcat/olmcat/fbc"
)

// TypeLegacyChannelDeprecation is the channel property the channel-deprecation design proposed
// before olm.deprecations existed: {"name", "message", "fallback": [channels]}, often written as
// a JSON string holding that object.
const TypeLegacyChannelDeprecation = "olm.deprecated.channel"

// LegacyChannelDeprecationValue is the value of an olm.deprecated.channel property.
type LegacyChannelDeprecationValue struct {
	Name     string   `json:"name"`
	Message  string   `json:"message"`
	Fallback []string `json:"fallback"`
}

// ParseLegacyChannelDeprecation reads an olm.deprecated.channel value: the object, or a JSON
// string holding it.
func ParseLegacyChannelDeprecation(raw json.RawMessage) (LegacyChannelDeprecationValue, error) {
	var v LegacyChannelDeprecationValue
	var quoted string
	if json.Unmarshal(raw, &quoted) == nil {
		raw = json.RawMessage(quoted) // the design's examples write the object as a JSON string
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return v, fmt.Errorf("expected {\"message\", \"fallback\": [channels]}: %v", err)
	}
	return v, nil
}

// LegacyChannelDeprecationMessage is the olm.deprecations message a legacy channel deprecation becomes: its message
// (or a default one) followed by its fallback channels.
func LegacyChannelDeprecationMessage(channel string, v LegacyChannelDeprecationValue) string {
	msg := strings.TrimSpace(v.Message)
	if msg == "" {
		msg = fmt.Sprintf("channel %s is deprecated", channel)
	}
	if len(v.Fallback) > 0 {
		if !strings.HasSuffix(msg, ".") {
			msg += "."
		}
		msg += " Switch to one of these channels instead: " + strings.Join(v.Fallback, ", ") + "."
	}
	return msg
}

// LegacyChannelDeprecation reads the older channel-property form of a deprecation (an
// olm.deprecated.channel property, with a message and fallback channels) from a channel's
// properties: the message it stands for, and whether there is one.
func LegacyChannelDeprecation(channel string, props []fbc.Property) (message string, ok bool, err error) {
	for _, p := range props {
		if p.Type != TypeLegacyChannelDeprecation {
			continue
		}
		v, err := ParseLegacyChannelDeprecation(p.Value)
		if err != nil {
			return "", false, fmt.Errorf("%s property: %w", TypeLegacyChannelDeprecation, err)
		}
		return LegacyChannelDeprecationMessage(channel, v), true, nil
	}
	return "", false, nil
}
