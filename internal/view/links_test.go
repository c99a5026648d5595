package view

import (
	"regexp"
	"strings"
	"testing"
)

func TestSkillName(t *testing.T) {
	for cli, want := range map[string]string{
		"discovery": "discovery", "Rosa_Tools": "rosa-tools", "a__b--c": "a-b-c", "_x_": "x", "__": "discovery",
		strings.Repeat("ab-", 30): strings.Repeat("ab-", 21) + "a",
	} {
		got := SkillName(cli)
		if got != want || !regexp.MustCompile(`^[a-z0-9]+(-[a-z0-9]+)*$`).MatchString(got) || len(got) > 64 {
			t.Errorf("SkillName(%q) = %q, want %q", cli, got, want)
		}
	}
}
