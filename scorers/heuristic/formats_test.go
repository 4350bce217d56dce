package heuristic_test

import (
	"testing"

	"github.com/mcp-pruner/mcp-pruner/scorers/heuristic"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestAboutFormatStrings(t *testing.T) {
	for goal, want := range map[string]bool{
		"Fix format string vulnerability":                              true,
		"Fix FTBFS with -Werror=format-security":                       true,
		"non-constant format string in call to fmt.Printf":             true,
		"fix -Wformat warnings":                                        true,
		"format: keep the date format when parsing":                    false,
		"Fix the output format of the report\n\nformat string changes": false,
	} {
		assert.Equal(t, want, heuristic.AboutFormatStrings(goal), goal)
	}
}

func TestLiftFormatCalls(t *testing.T) {
	// The calls are indented, as in a function body: at the margin, the build kind the goal's
	// FTBFS also asks for would take them for file-scope declarations (builds.go).
	lines := []string{
		`	printf(msg);`,                             // 0: the format is a variable
		`	fprintf(stderr, buf);`,                    // 1
		`	snprintf(out, sizeof(out), fmt);`,         // 2
		`	syslog(LOG_ERR, message);`,                // 3
		`	fmt.Printf(s)`,                            // 4: Go
		`	t.Errorf(msg)`,                            // 5
		`	printf("%s", msg);`,                       // 6: a literal format
		`	printf(_("done\n"));`,                     // 7: a translated literal
		`	fprintf(stderr, "%s: %s\n", prog, msg);`,  // 8
		`	printf(fmt, a, b);`,                       // 9: arguments follow: a vprintf-style wrapper
		`	sprintf(buf, msg`,                         // 10: the call goes on past the line
		`	log_printf(msg);`,                         // 11: not of the family
		`	fmt.Sprintf("%d", strings.Count(s, ","))`, // 12
	}
	q := heuristic.ParseGoal("Fix FTBFS with -Werror=format-security")
	require.True(t, q.AboutFormatStrings)
	scores := make([]float64, len(lines))
	heuristic.Analyze(lines, q).LiftGoalKinds(lines, scores, true)
	for i, v := range scores {
		if i <= 5 {
			assert.InDelta(t, 0.9, v, 1e-9, "line %d: %s", i, lines[i])
		} else {
			assert.Zero(t, v, "line %d: %s", i, lines[i])
		}
	}
	other := make([]float64, len(lines))
	heuristic.Analyze(lines, heuristic.ParseGoal("fix the exit code")).LiftGoalKinds(lines, other, true)
	assert.Equal(t, make([]float64, len(lines)), other, "no such goal, no lift")
}
