package heuristic

import "strings"

// abbreviations maps an English word to the short forms code spells it with, so an issue
// about "dimensions" or "attributes" reaches code that says dims and attrs, and a docs intent
// about a "string" reaches the str entries. Language keywords (var, func) are left out: they
// are on every other line and say nothing about the goal. The list is the common vocabulary
// of programmers, not fitted to any case.
var abbreviations = func() map[string][]string {
	m := map[string][]string{}
	for _, l := range strings.Split(`attribute attr
dimension dim
coordinate coord
directory dir
temporary tmp temp
message msg
context ctx
index idx
configuration config cfg conf
config cfg conf
parameter param
argument arg
error err
exception exc
request req
response resp
value val
object obj
string str
number num
length len
package pkg
source src
destination dst dest
buffer buf
pointer ptr
count cnt
environment env
repository repo
document doc
documentation doc docs
information info
initialize init
initialization init
maximum max
minimum min
option opt
position pos
previous prev
reference ref
specification spec
synchronize sync
utility util
implementation impl
authentication auth
authorization auth
connection conn
address addr
column col
element elem
generator gen
library lib
process proc
sequence seq
current cur curr
command cmd
descriptor desc
description desc
dictionary dict
expression expr
extension ext
format fmt
image img
integer int
iterator iter
manager mgr
module mod
original orig
property prop props
statistics stats
transaction txn
keyword kw
array arr
boolean bool
character char
calculate calc
compare cmp
alternative alt
allocate alloc
average avg
button btn
template tmpl tpl
certificate cert
regular regex`, "\n") {
		f := strings.Fields(l)
		m[f[0]] = append(m[f[0]], f[1:]...)
	}
	return m
}()

// abbrevWeight scales a short form's weight against its goal word's: "dims" is weaker
// evidence than "dimensions", and the common short forms (err, str, idx) are everywhere.
// Measured in scorers/structural/RESULTS.md (eleventh round): 0.2 to 0.4 give the same
// recall, full weight loses on Python code.
const abbrevWeight = 0.3

// appendAbbrevTerms adds the short forms of the goal's prose words as weaker terms of their
// own, unless the goal has them already. Words the goal writes as code, and its whole
// identifiers, are names already and get none.
func appendAbbrevTerms(ts []Term) []Term {
	have := map[string]bool{}
	for _, t := range ts {
		for _, v := range variants(t.Text) {
			have[v] = true
		}
	}
	n := len(ts)
	for _, t := range ts[:n] {
		if t.Exact || t.Code {
			continue
		}
		for _, v := range variants(t.Text) {
			for _, a := range abbreviations[v] {
				if have[a] {
					continue
				}
				have[a] = true
				ts = append(ts, Term{Text: a, Weight: abbrevWeight * t.Weight, Display: t.Display, short: true})
			}
		}
	}
	return ts
}
