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
// Go tests shows the prerequisite check (scripts/prereqs.sh) as its first
// command, before the first long step.
func TestMakeChecksPrerequisitesFirst(t *testing.T) {
	atRepoRoot(t)
	makeTool, err := exec.LookPath("make")
	require.NoError(t, err, "the tests of the Makefile need make, as make test does")
	for _, c := range []struct {
		target, longStep string
	}{
		{"test", "go vet "},
		{"unit", "go test "},
		{"screenshot", "go test "},
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
			require.Equal(t, "/bin/sh scripts/prereqs.sh", lines[0], "make -n %s: the first command\n%s", c.target, out)
		})
	}
}

// TestMakePrereqs runs `make prereqs`, or `make test` where it must stop,
// on a PATH of stand-ins alone: id says who runs it, sudo lets it through
// or asks for a password, apt-get installs (writes the commands into the
// PATH), fails, or is absent; and chromium, google-chrome and git are
// there or not. Each stop comes within seconds, before go vet, and says
// the command to run; apt-get runs only as root or through sudo.
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
		target   string   // make test when it must stop, make prereqs when it must pass
		uid      string   // what id -u says
		have     []string // commands on PATH before the check
		chromium string   // $CHROMIUM
		sudo     string   // "", "asks" (for a password), "lets"
		aptGet   string   // "", "fails", "installs", "installs-nothing"
		code     int
		apt      []string // apt-get's invocations, with DEBIAN_FRONTEND
		sudoArgs []string // sudo's invocations
		say      []string // in the output
	}{
		{name: "all there, as a user", target: "prereqs", uid: "1000", have: []string{"chromium", "git"}, aptGet: "fails", sudo: "asks"},
		{name: "chrome and git", target: "prereqs", uid: "1000", have: []string{"google-chrome", "git"}, aptGet: "fails"},
		{name: "CHROMIUM set", target: "prereqs", uid: "1000", have: []string{"git"}, chromium: "/opt/chrome/chrome", aptGet: "fails"},
		{
			name: "root installs", target: "prereqs", uid: "0", have: []string{"git"}, aptGet: "installs",
			apt: []string{"noninteractive update -qq", "noninteractive install -y -qq chromium"},
			say: []string{"installing chromium with apt-get"},
		},
		{
			name: "passwordless sudo installs both", target: "prereqs", uid: "1000", sudo: "lets", aptGet: "installs",
			apt:      []string{"noninteractive update -qq", "noninteractive install -y -qq chromium git"},
			sudoArgs: []string{"-n true", "-n DEBIAN_FRONTEND=noninteractive apt-get update -qq", "-n DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium git"},
			say:      []string{"installing chromium git with apt-get through sudo"},
		},
		{
			name: "sudo asks for a password", target: "test", uid: "1000", have: []string{"git"}, sudo: "asks", aptGet: "installs", code: 2,
			sudoArgs: []string{"-n true"},
			say:      []string{"missing: chromium (installing needs root or passwordless sudo)", hint + "chromium\n", "set CHROMIUM"},
		},
		{
			name: "no sudo", target: "test", uid: "1000", have: []string{"chromium"}, aptGet: "installs", code: 2,
			say: []string{"missing: git (installing needs root or passwordless sudo)", hint + "git\n", "Elsewhere, install git."},
		},
		{
			name: "root, apt-get fails", target: "test", uid: "0", aptGet: "fails", code: 2,
			apt: []string{"noninteractive update -qq"},
			say: []string{"missing: chromium git (apt-get failed)", hint + "chromium git\n"},
		},
		{
			name: "root, apt-get installs nothing", target: "test", uid: "0", have: []string{"git"}, aptGet: "installs-nothing", code: 2,
			apt: []string{"noninteractive update -qq", "noninteractive install -y -qq chromium"},
			say: []string{"missing: chromium (apt-get installed it, yet it is not on PATH)", hint + "chromium\n"},
		},
		{
			name: "no apt-get", target: "test", uid: "0", have: []string{"git"}, code: 2,
			say: []string{"missing: chromium (this system has no apt-get)", hint + "chromium\n", "Chromium or Google Chrome"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			bin := filepath.Join(dir, "bin")
			require.NoError(t, os.Mkdir(bin, 0o755))
			aptLog, sudoLog := filepath.Join(dir, "apt-get.log"), filepath.Join(dir, "sudo.log")
			standIn := func(name, body string) {
				require.NoError(t, os.WriteFile(filepath.Join(bin, name), []byte("#!"+tools["sh"]+"\n"+body+"\n"), 0o755))
			}
			standIn("id", "echo "+c.uid)
			for _, h := range c.have {
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
			} else if len(c.apt) == 0 {
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
		})
	}
}
