package input

import (
	"errors"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// ReadFleet reads at most concurrency members at once, counting the ones
// read but not yet used, hands them to use in the members' order whatever
// order their reads end in, hands a member that cannot be read over with
// its error unread, and stops at use's first error.
func TestReadFleet(t *testing.T) {
	var members []*Member
	for i := range 12 {
		m := &Member{Contexts: []string{string(rune('a' + i))}}
		if i == 5 {
			m.Err = errors.New("unreachable")
		}
		members = append(members, m)
	}
	var mu sync.Mutex
	held, most := 0, 0
	read := func(m *Member) (string, error) {
		mu.Lock()
		held++
		most = max(most, held)
		mu.Unlock()
		// The later members finish first.
		time.Sleep(time.Duration(12-len(m.Name())-int(m.Name()[0]-'a')) * time.Millisecond)
		return m.Name(), nil
	}
	var order []string
	err := ReadFleet(members, 3, read, func(m *Member, v string, err error) error {
		if m.Err != nil {
			require.Equal(t, m.Err, err)
			require.Empty(t, v)
			order = append(order, "!"+m.Name())
			return nil
		}
		require.NoError(t, err)
		mu.Lock()
		held--
		mu.Unlock()
		order = append(order, v)
		return nil
	})
	require.NoError(t, err)
	require.Equal(t, []string{"a", "b", "c", "d", "e", "!f", "g", "h", "i", "j", "k", "l"}, order)
	require.LessOrEqual(t, most, 3)

	stop := errors.New("stop")
	n := 0
	err = ReadFleet(members, 2, read, func(*Member, string, error) error {
		if n++; n == 4 {
			return stop
		}
		return nil
	})
	require.Equal(t, stop, err)
	require.Equal(t, 4, n)
}
