package search

// Analysis: the terms a text is indexed under and a query is searched
// for. A text is split into words at white space; a word into its parts,
// the runs of letters and digits between punctuation ("CSS(3)" is "CSS"
// and "3"), each ideograph a part of its own, as Chinese and Japanese put
// no spaces between words; and a word of two to four parts is also taken
// whole, its punctuation dropped ("css3", "email" for "e-mail", "vuejs"),
// so that either spelling finds the other. Each part is case-folded and
// normalised (NFKC: "ﬁ" is "fi", a full-width letter its ASCII one), its
// accents dropped ("São" is "sao") and stemmed in the site's language
// ("sunsets" and "sunset" are "sunset"), by the Snowball stemmers.

import (
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/arabic"
	"github.com/blevesearch/snowballstem/danish"
	"github.com/blevesearch/snowballstem/dutch"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blevesearch/snowballstem/finnish"
	"github.com/blevesearch/snowballstem/french"
	"github.com/blevesearch/snowballstem/german"
	"github.com/blevesearch/snowballstem/hungarian"
	"github.com/blevesearch/snowballstem/irish"
	"github.com/blevesearch/snowballstem/italian"
	"github.com/blevesearch/snowballstem/norwegian"
	"github.com/blevesearch/snowballstem/portuguese"
	"github.com/blevesearch/snowballstem/romanian"
	"github.com/blevesearch/snowballstem/russian"
	"github.com/blevesearch/snowballstem/spanish"
	"github.com/blevesearch/snowballstem/swedish"
	"github.com/blevesearch/snowballstem/tamil"
	"github.com/blevesearch/snowballstem/turkish"
	"golang.org/x/text/cases"
	"golang.org/x/text/language"
	"golang.org/x/text/unicode/norm"
)

// stemmer is the Snowball stemmer of a language. foldFirst says that its
// accents are dropped before stemming: the English stemmer knows none, so
// "résumés" is stemmed as "resumes"; the others read them ("información"
// and "informaciones" are one stem only with the accent), so the stem's
// accents are dropped after.
type stemmer struct {
	stem      func(*snowballstem.Env) bool
	foldFirst bool
}

// stemmers are the languages the site's language may name, by ISO 639-1
// code; any other language is stemmed as English.
var stemmers = map[string]stemmer{
	"ar": {arabic.Stem, false}, "da": {danish.Stem, false}, "de": {german.Stem, false},
	"en": {english.Stem, true}, "es": {spanish.Stem, false}, "fi": {finnish.Stem, false},
	"fr": {french.Stem, false}, "ga": {irish.Stem, false}, "hu": {hungarian.Stem, false},
	"it": {italian.Stem, false}, "nb": {norwegian.Stem, false}, "nl": {dutch.Stem, false},
	"nn": {norwegian.Stem, false}, "no": {norwegian.Stem, false}, "pt": {portuguese.Stem, false},
	"ro": {romanian.Stem, false}, "ru": {russian.Stem, false}, "sv": {swedish.Stem, false},
	"ta": {tamil.Stem, false}, "tr": {turkish.Stem, false},
}

// defaultLanguage is the language of a site that names none, or one
// without a stemmer.
const defaultLanguage = "en"

// languageOf is the code of the language a site's language tag (its
// <html lang>, such as "en-GB" or "pt-BR") is stemmed as: one of
// stemmers, else defaultLanguage.
func languageOf(tag string) string {
	t, err := language.Parse(strings.ReplaceAll(strings.TrimSpace(tag), "_", "-"))
	if err != nil {
		return defaultLanguage
	}
	base, _ := t.Base()
	if _, ok := stemmers[base.String()]; ok {
		return base.String()
	}
	return defaultLanguage
}

// maxJoinedParts is the most parts of a word that is also taken whole:
// "state-of-the-art" is; a path or a long chain of words is not.
const maxJoinedParts = 4

// maxStemmed is the longest word, in bytes, that is stemmed; longer ones
// (no word of a language, and never a whole query word) are kept as they
// are, so that the stemmer's cost stays bounded.
const maxStemmed = 64

// eachToken calls f with each token of text: each part of its words, with
// whole false, and each word of two to maxJoinedParts parts, with whole
// true (raw is then the word from its first part to its last, punctuation
// and all), at the rune index it starts at. Web addresses and the targets
// of Markdown links are not words of the text and are skipped, so that a
// post that links to another is not taken for one about it. It reads text
// once, a byte at a time where it is ASCII, as it reads every word the
// content has when the index is built.
func eachToken(text string, f func(raw string, at int, whole bool)) {
	type part struct{ start, end, at int }
	var parts []part
	word, cut := -1, -1 // the word's first byte, and where a link's target starts in it
	address := false
	partStart, partAt := -1, 0
	endPart := func(i int) {
		if partStart >= 0 {
			parts = append(parts, part{partStart, i, partAt})
			partStart = -1
		}
	}
	endWord := func(i int) {
		endPart(i)
		if word >= 0 && !address && !strings.HasPrefix(text[word:i], "www.") {
			n := 0
			for _, p := range parts {
				if cut >= 0 && p.end > cut {
					break
				}
				f(text[p.start:p.end], p.at, false)
				n++
			}
			if n >= 2 && n <= maxJoinedParts {
				f(text[parts[0].start:parts[n-1].end], parts[0].at, true)
			}
		}
		parts, word, cut, address = parts[:0], -1, -1, false
	}
	runes := 0
	for i := 0; i < len(text); runes++ {
		c, size := text[i], 1
		var space, inWord, alone bool
		if c < utf8.RuneSelf {
			space, inWord = asciiSpace[c], asciiWord[c]
		} else {
			var r rune
			r, size = utf8.DecodeRuneInString(text[i:])
			space = unicode.IsSpace(r)
			alone = ideograph(r)
			inWord = !alone && (unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r))
		}
		switch {
		case space:
			endWord(i)
		case word < 0:
			word = i
		}
		switch {
		case space:
		case alone:
			endPart(i)
			parts = append(parts, part{i, i + size, runes})
		case inWord:
			if partStart < 0 {
				partStart, partAt = i, runes
			}
		default:
			endPart(i)
			if c == ':' && strings.HasPrefix(text[i:], "://") {
				address = true
			} else if c == ']' && cut < 0 && strings.HasPrefix(text[i:], "](") {
				cut = i
			}
		}
		i += size
	}
	endWord(len(text))
}

// asciiSpace and asciiWord are the ASCII characters unicode.IsSpace and
// wordRune accept.
var asciiSpace, asciiWord [utf8.RuneSelf]bool

func init() {
	for c := range rune(utf8.RuneSelf) {
		asciiSpace[c], asciiWord[c] = unicode.IsSpace(c), wordRune(c)
	}
}

// wordRune reports whether r belongs to a word's part: a letter, a digit
// or another number, or a mark on one.
func wordRune(r rune) bool {
	if r < utf8.RuneSelf {
		return 'a' <= r && r <= 'z' || 'A' <= r && r <= 'Z' || '0' <= r && r <= '9'
	}
	return unicode.IsLetter(r) || unicode.IsNumber(r) || unicode.IsMark(r)
}

// ideograph reports whether r is written without spaces between words, so
// that each is a part of its own.
func ideograph(r rune) bool {
	return r >= 0x2E80 && unicode.In(r, unicode.Han, unicode.Hiragana, unicode.Katakana)
}

// analyzer turns tokens into the words, forms and terms the index holds.
// It keeps a case folder, which is not safe for concurrent use: each
// search has its own analyzer.
type analyzer struct {
	stemmer stemmer
	// stem is false for the measurement of the ranking without stemming.
	stem   bool
	folder cases.Caser
	folds  bool // folder is made
	env    *snowballstem.Env
}

func newAnalyzer(lang string, stem bool) analyzer {
	s, ok := stemmers[lang]
	if !ok {
		s = stemmers[defaultLanguage]
	}
	return analyzer{stemmer: s, stem: stem}
}

// word is a token case-folded and normalised, its accents kept: whole, its
// punctuation dropped.
func (a *analyzer) word(raw string, whole bool) string {
	if whole {
		var b strings.Builder
		b.Grow(len(raw))
		for _, r := range raw {
			if wordRune(r) {
				b.WriteRune(r)
			}
		}
		raw = b.String()
	}
	if ascii(raw) {
		return strings.ToLower(raw)
	}
	if !a.folds {
		a.folder, a.folds = cases.Fold(), true
	}
	// Normalised before folding, as a compatibility character may be a
	// capital ("ℌ" is "H"), and after, as folding may compose otherwise.
	return norm.NFKC.String(a.folder.String(norm.NFKC.String(raw)))
}

// formTerm is a word's form, its accents dropped, which a query word
// matches the beginning of, and its term, its stem in the analyzer's
// language, which a query word matches whole.
func (a *analyzer) formTerm(word string) (form, term string) {
	if ascii(word) {
		return word, a.stemmed(word)
	}
	form = unaccented(word)
	if a.stemmer.foldFirst {
		return form, a.stemmed(form)
	}
	return form, unaccented(a.stemmed(word))
}

func (a *analyzer) stemmed(word string) string {
	if !a.stem || len(word) > maxStemmed {
		return word
	}
	if a.env == nil {
		a.env = snowballstem.NewEnv(word)
	} else {
		a.env.SetCurrent(word)
	}
	a.stemmer.stem(a.env)
	return a.env.Current()
}

func ascii(s string) bool {
	for i := range len(s) {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// unaccented is s without the accents of its Latin, Greek and Cyrillic
// letters ("São" is "Sao", "naïve" is "naive"). The marks of other
// scripts are kept: in Devanagari or Thai they are letters' vowels, not
// accents.
func unaccented(s string) string {
	d := norm.NFD.String(s)
	var b strings.Builder
	b.Grow(len(d))
	accents := false // the marks that follow are accents
	for _, r := range d {
		if !unicode.Is(unicode.Mn, r) {
			accents = unicode.In(r, unicode.Latin, unicode.Greek, unicode.Cyrillic)
		} else if accents {
			continue
		}
		b.WriteRune(r)
	}
	return norm.NFC.String(b.String())
}

// queryWords are the distinct words of a query as the index reads them,
// at most maxQueryWords, each from a word of at most maxQueryWordSize
// bytes: its parts and, for a word of several parts, the word whole, a
// part of one letter left out then ("e" of "e-mail", "s" of "Caddy's"), as
// the whole stands for it.
func (x *Index) queryWords(query string) []string {
	query = strings.ToValidUTF8(query, "")
	if x.rank.legacy {
		return legacyQueryWords(query)
	}
	var words []string
	a := newAnalyzer(x.language, x.rank.stem)
	add := func(raw string, whole bool) bool {
		if w := a.word(raw, whole); w != "" && !slices.Contains(words, w) {
			words = append(words, w)
		}
		return len(words) < maxQueryWords
	}
	for _, field := range strings.Fields(query) {
		if len(field) > maxQueryWordSize {
			continue
		}
		var parts []string
		wholes := ""
		eachToken(field, func(raw string, _ int, whole bool) {
			if whole {
				wholes = raw
			} else {
				parts = append(parts, raw)
			}
		})
		for _, p := range parts {
			if r, size := utf8.DecodeRuneInString(p); len(parts) > 1 && size == len(p) && !ideograph(r) {
				continue
			}
			if !add(p, false) {
				return words
			}
		}
		if wholes != "" && !add(wholes, true) {
			return words
		}
	}
	return words
}
