package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// makeEnv is the environment for a make run by a test: the given variables,
// none of the calling make's (MAKEFLAGS would carry its options and jobs).
func makeEnv(vars ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if k != "MAKEFLAGS" && k != "MFLAGS" && k != "MAKELEVEL" {
			env = append(env, kv)
		}
	}
	return append(env, vars...)
}

// TestMakeChecksPrerequisitesFirst: `make -n` of each target that runs the
// Go tests shows the prerequisite check (scripts/prereqs.sh, for race only
// its C compiler) as its first command, before the first long step.
func TestMakeChecksPrerequisitesFirst(t *testing.T) {
	atRepoRoot(t)
	makeTool, err := exec.LookPath("make")
	require.NoError(t, err, "the tests of the Makefile need make, as make test does")
	for _, c := range []struct {
		target, longStep, check string
	}{
		{"test", "go vet ", "/bin/sh scripts/prereqs.sh"},
		{"unit", "go test ", "/bin/sh scripts/prereqs.sh"},
		{"screenshot", "go test ", "/bin/sh scripts/prereqs.sh"},
		{"race", "CGO_ENABLED=1 go test -count=1 -race ", "/bin/sh scripts/prereqs.sh race"},
	} {
		t.Run(c.target, func(t *testing.T) {
			cmd := exec.Command(makeTool, "-n", c.target)
			cmd.Env = makeEnv()
			out, err := cmd.CombinedOutput()
			require.NoError(t, err, "make -n %s\n%s", c.target, out)
			lines := strings.Split(strings.TrimSpace(string(out)), "\n")
			step := -1
			for i, l := range lines {
				if strings.HasPrefix(l, c.longStep) {
					step = i
					break
				}
			}
			require.NotEqual(t, -1, step, "make -n %s shows no %q\n%s", c.target, c.longStep, out)
			require.Greater(t, step, 0)
			require.Equal(t, c.check, lines[0], "make -n %s: the first command\n%s", c.target, out)
		})
	}
}

// raceRun is how make race runs go: with cgo, under the race detector.
const raceRun = "1 test -count=1 -race -run ^TestWorkersShareThePreparedRuntimes$ ./engine"

// TestMakePrereqs runs `make prereqs`, or `make test` where it must stop,
// and `make race`, on a PATH of stand-ins alone: id says who runs it, sudo
// lets it through or asks for a password, apt-get installs (writes the
// commands into the PATH), fails, or is absent; and chromium,
// google-chrome, git, gcc and go are there or not. Each stop comes within
// seconds, before go vet or go test, and says the command to run; apt-get
// runs only as root or through sudo; make race runs the test under -race
// or not at all.
func TestMakePrereqs(t *testing.T) {
	atRepoRoot(t)
	makeTool, err := exec.LookPath("make")
	require.NoError(t, err, "the tests of the Makefile need make, as make test does")
	tools := map[string]string{}
	for _, name := range []string{"sh", "env", "chmod"} {
		p, err := exec.LookPath(name)
		require.NoError(t, err)
		tools[name], err = filepath.Abs(p)
		require.NoError(t, err)
	}
	const hint = "apt-get update && apt-get install -y "
	for _, c := range []struct {
		name     string
		target   string   // make test when it must stop, make prereqs when it must pass; or make race
		uid      string   // what id -u says
		have     []string // commands on PATH before the check
		chromium string   // $CHROMIUM
		cgo      string   // $CGO_ENABLED
		sudo     string   // "", "asks" (for a password), "lets"
		aptGet   string   // "", "fails", "installs", "installs-nothing"
		code     int
		apt      []string // apt-get's invocations, with DEBIAN_FRONTEND
		sudoArgs []string // sudo's invocations
		goArgs   []string // go's invocations but go env, with CGO_ENABLED
		say      []string // in the output
	}{
		{name: "all there, as a user", target: "prereqs", uid: "1000", have: []string{"chromium", "git", "gcc"}, aptGet: "fails", sudo: "asks"},
		{name: "chrome and git", target: "prereqs", uid: "1000", have: []string{"google-chrome", "git", "gcc"}, aptGet: "fails"},
		{name: "CHROMIUM set", target: "prereqs", uid: "1000", have: []string{"git", "gcc"}, chromium: "/opt/chrome/chrome", aptGet: "fails"},
		{
			name: "root installs", target: "prereqs", uid: "0", have: []string{"git", "gcc"}, aptGet: "installs",
			apt: []string{"noninteractive update -qq", "noninteractive install -y -qq chromium"},
			say: []string{"installing chromium with apt-get"},
		},
		{
			name: "passwordless sudo installs both", target: "prereqs", uid: "1000", have: []string{"gcc"}, sudo: "lets", aptGet: "installs",
			apt:      []string{"noninteractive update -qq", "noninteractive install -y -qq chromium git"},
			sudoArgs: []string{"-n true", "-n DEBIAN_FRONTEND=noninteractive apt-get update -qq", "-n DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium git"},
			say:      []string{"installing chromium git with apt-get through sudo"},
		},
		{
			name: "passwordless sudo installs all three", target: "prereqs", uid: "1000", sudo: "lets", aptGet: "installs",
			apt:      []string{"noninteractive update -qq", "noninteractive install -y -qq chromium git gcc libc6-dev"},
			sudoArgs: []string{"-n true", "-n DEBIAN_FRONTEND=noninteractive apt-get update -qq", "-n DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium git gcc libc6-dev"},
			say:      []string{"installing chromium git gcc libc6-dev with apt-get through sudo"},
		},
		{
			name: "sudo asks for a password", target: "test", uid: "1000", have: []string{"git", "gcc"}, sudo: "asks", aptGet: "installs", code: 2,
			sudoArgs: []string{"-n true"},
			say:      []string{"missing: chromium (installing needs root or passwordless sudo)", hint + "chromium\n", "set CHROMIUM"},
		},
		{
			name: "no sudo", target: "test", uid: "1000", have: []string{"chromium", "gcc"}, aptGet: "installs", code: 2,
			say: []string{"missing: git (installing needs root or passwordless sudo)", hint + "git\n", "Elsewhere, install git."},
		},
		{
			name: "root, apt-get fails", target: "test", uid: "0", aptGet: "fails", code: 2,
			apt: []string{"noninteractive update -qq"},
			say: []string{"missing: chromium git gcc libc6-dev (apt-get failed)", hint + "chromium git gcc libc6-dev\n", "a C compiler for the race detector (gcc, which cgo calls"},
		},
		{
			name: "root, apt-get installs nothing", target: "test", uid: "0", have: []string{"git", "gcc"}, aptGet: "installs-nothing", code: 2,
			apt: []string{"noninteractive update -qq", "noninteractive install -y -qq chromium"},
			say: []string{"missing: chromium (apt-get installed it, yet it is not on PATH)", hint + "chromium\n"},
		},
		{
			name: "no apt-get", target: "test", uid: "0", have: []string{"git", "gcc"}, code: 2,
			say: []string{"missing: chromium (this system has no apt-get)", hint + "chromium\n", "Chromium or Google Chrome"},
		},
		{
			name: "race with a compiler", target: "race", uid: "1000", have: []string{"gcc", "go"}, aptGet: "fails",
			goArgs: []string{raceRun},
		},
		{
			name: "race with cgo turned off", target: "race", uid: "1000", have: []string{"gcc", "go"}, cgo: "0", aptGet: "fails",
			goArgs: []string{raceRun},
		},
		{
			name: "race, root installs a compiler", target: "race", uid: "0", have: []string{"go"}, aptGet: "installs",
			apt:    []string{"noninteractive update -qq", "noninteractive install -y -qq gcc libc6-dev"},
			goArgs: []string{raceRun},
			say:    []string{"make race: installing gcc libc6-dev with apt-get"},
		},
		{
			name: "race, no compiler, no sudo", target: "race", uid: "1000", have: []string{"go"}, cgo: "0", aptGet: "installs", code: 2,
			say: []string{"make race: missing: gcc libc6-dev (installing needs root or passwordless sudo)", hint + "gcc libc6-dev\n", "then make race again"},
		},
		{
			name: "race, no compiler, no apt-get", target: "race", uid: "0", have: []string{"go"}, code: 2,
			say: []string{"make race: missing: gcc libc6-dev (this system has no apt-get)", "Elsewhere, install a C compiler for the race detector (gcc, which cgo calls; or set CC to another)."},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			bin := filepath.Join(dir, "bin")
			require.NoError(t, os.Mkdir(bin, 0o755))
			aptLog, sudoLog, goLog := filepath.Join(dir, "apt-get.log"), filepath.Join(dir, "sudo.log"), filepath.Join(dir, "go.log")
			standIn := func(name, body string) {
				require.NoError(t, os.WriteFile(filepath.Join(bin, name), []byte("#!"+tools["sh"]+"\n"+body+"\n"), 0o755))
			}
			standIn("id", "echo "+c.uid)
			for _, h := range c.have {
				if h == "go" {
					standIn(h, fmt.Sprintf("[ \"$1\" = env ] && { echo gcc; exit 0; }\necho \"$CGO_ENABLED $*\" >>%s", goLog))
					continue
				}
				standIn(h, "exit 0")
			}
			switch c.sudo {
			case "asks":
				standIn("sudo", fmt.Sprintf("echo \"$*\" >>%s\necho 'sudo: a password is required' >&2\nexit 1", sudoLog))
			case "lets":
				standIn("sudo", fmt.Sprintf("echo \"$*\" >>%s\n[ \"$1\" = -n ] || exit 1\nshift\n[ \"$*\" = true ] && exit 0\nexec %s \"$@\"", sudoLog, tools["env"]))
			}
			logApt := fmt.Sprintf("echo \"$DEBIAN_FRONTEND $*\" >>%s\n", aptLog)
			switch c.aptGet {
			case "fails":
				standIn("apt-get", logApt+"echo 'E: no network' >&2\nexit 100")
			case "installs", "installs-nothing":
				install := ""
				if c.aptGet == "installs" {
					install = fmt.Sprintf("\n  case $p in -*) ;; *) echo exit 0 >%s/$p; %s +x %s/$p;; esac", bin, tools["chmod"], bin)
				}
				standIn("apt-get", logApt+"[ \"$1\" = install ] || exit 0\nfor p in \"$@\"; do :"+install+"\ndone")
			}

			cmd := exec.Command(makeTool, c.target)
			cmd.Env = []string{"PATH=" + bin}
			if c.chromium != "" {
				cmd.Env = append(cmd.Env, "CHROMIUM="+c.chromium)
			}
			if c.cgo != "" {
				cmd.Env = append(cmd.Env, "CGO_ENABLED="+c.cgo)
			}
			start := time.Now()
			outBytes, err := cmd.CombinedOutput()
			took := time.Since(start)
			out := string(outBytes)
			code := 0
			if exit, ok := err.(*exec.ExitError); ok {
				code = exit.ExitCode()
			} else {
				require.NoError(t, err)
			}
			require.Equal(t, c.code, code, "make %s\n%s", c.target, out)
			require.Less(t, took, 5*time.Second, "make %s took %s", c.target, took)
			for _, s := range c.say {
				require.Contains(t, out, s)
			}
			if c.code != 0 {
				require.NotContains(t, out, "go vet", "make test went on past the check")
			} else if len(c.apt) == 0 && c.target == "prereqs" {
				require.Empty(t, out)
			}
			lines := func(file string) []string {
				data, err := os.ReadFile(file)
				if os.IsNotExist(err) {
					return nil
				}
				require.NoError(t, err)
				return strings.Split(strings.TrimSuffix(string(data), "\n"), "\n")
			}
			require.Equal(t, c.apt, lines(aptLog), "apt-get's runs")
			require.Equal(t, c.sudoArgs, lines(sudoLog), "sudo's runs")
			require.Equal(t, c.goArgs, lines(goLog), "go's runs")
		})
	}
}
