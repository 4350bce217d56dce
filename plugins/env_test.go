package plugins

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestEnvOverridesHost(t *testing.T) {
	bin, sum := buildPlugin(t, "./plugins/testdata/probe")
	t.Setenv("PROBE_FOO", "host")
	tests := []struct {
		name string
		env  []string
		want string
	}{
		{name: "configured value wins", env: []string{"PROBE_FOO=configured"}, want: "FOO=configured"},
		{name: "host value is inherited", env: nil, want: "FOO=host"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := newClient(t, Config{Name: "p", Command: bin, SHA256: sum, Start: StartEager, Env: tt.env})
			assert.Equal(t, tt.want, c.Describe().Description)
		})
	}
}
