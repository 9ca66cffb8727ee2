package objects

import (
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// NameNotice says, for an object whose name the API server refuses, what
// the API server says, or "" when it takes the name. The name of every
// custom resource, OME's included, must be a DNS-1123 subdomain: lower case
// letters, digits, '-' and '.', at most 253 characters, starting and
// ending with a letter or digit.
func NameNotice(o *Object) string {
	if o.Name == "" || plainName(o.Name) {
		return ""
	}
	msgs := validation.IsDNS1123Subdomain(o.Name)
	if len(msgs) == 0 {
		return ""
	}
	var errs field.ErrorList
	for _, m := range msgs {
		errs = append(errs, field.Invalid(field.NewPath("metadata", "name"), o.Name, m))
	}
	group, _, _ := strings.Cut(APIVersion, "/")
	refused := apierrors.NewInvalid(schema.GroupKind{Group: group, Kind: o.Kind}, o.Name, errs)
	note := fmt.Sprintf("%s: notice: the API server refuses %s: %s", FileLine(o.File, o.LineOf("metadata.name")), o.Ref(), refused.Error())
	if name := dnsName(o.Name); name != "" {
		note += fmt.Sprintf("; %q is a name it takes", name)
	}
	return note
}

// BadName is an object whose name the API server refuses: its ref
// (Kind/name), its notice, and the file the notice names first.
type BadName struct {
	Ref, Notice, File string
}

// BadNamesNotice says the names the API server refuses: the first in its
// words, whose notice holds the rule; then the others in one line, by ref
// (five of them, and how many more). "" when there are none.
func BadNamesNotice(bad []BadName) string {
	if len(bad) == 0 {
		return ""
	}
	note := bad[0].Notice
	if rest := bad[1:]; len(rest) > 0 {
		refs := make([]string, 0, 5)
		for _, b := range rest[:min(5, len(rest))] {
			refs = append(refs, b.Ref)
		}
		list := strings.Join(refs, ", ")
		if len(rest) > 5 {
			list += fmt.Sprintf(" and %d more", len(rest)-5)
		}
		note += fmt.Sprintf("\nnotice: the API server refuses %d more name(s) that are not DNS-1123 subdomains: %s", len(rest), list)
	}
	return note
}

// plainName is the quick test that most names pass: lower case letters
// and digits, with '-' and '.' inside.
func plainName(name string) bool {
	if len(name) > validation.DNS1123SubdomainMaxLength {
		return false
	}
	for i := 0; i < len(name); i++ {
		c := name[i]
		alnum := c >= 'a' && c <= 'z' || c >= '0' && c <= '9'
		inside := i > 0 && i < len(name)-1 && (c == '-' || c == '.')
		if !alnum && !inside {
			return false
		}
	}
	return !strings.Contains(name, "..") && !strings.Contains(name, ".-") && !strings.Contains(name, "-.")
}

// dnsName is name in lower case, with '-' for each character that a
// DNS-1123 subdomain does not allow, trimmed to start and end with a letter
// or digit; "" when that leaves no valid name.
func dnsName(name string) string {
	b := []byte(strings.ToLower(name))
	for i, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '.') {
			b[i] = '-'
		}
	}
	s := strings.Trim(string(b), "-.")
	if s == "" || len(validation.IsDNS1123Subdomain(s)) > 0 {
		return ""
	}
	return s
}
