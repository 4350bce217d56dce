package tokenizer

import "encoding/binary"

// Line prices. A text cached whole (minCachedText up to what the texts cache holds) keeps,
// after its bytes, two prices per line, lines as CountLines splits them: the line's CountLine,
// then the CountLine of its numbered form "N│ R" (N the line's 1-based number, R the line;
// see CountNumberedLine) once a caller has worked it out and remembered it. Each is a
// little-endian uint16; unknownPrice marks a numbered form not remembered yet. A text read
// again (an agent re-reading a file, one file sent by many clients) is then priced without a
// segment lookup per line, and its numbered output counted without a scan per line; 4 bytes
// a line is an eighth of a typical line's own bytes.
//
// A text whose prices do not all fit in 16 bits (a line of 65,535 tokens or more) or would
// not fit in the cache beside the text is kept without them, and priced line by line.
const (
	priceBytes   = 4
	unknownPrice = 0xFFFF
)

// appendLinePrices appends the prices of lines whose CountLine are costs, numbered forms
// unknown, to dst; nil when a price does not fit.
func appendLinePrices(dst []byte, costs []int) []byte {
	dst = dst[:0]
	for _, c := range costs {
		if c < 0 || c >= unknownPrice {
			return nil
		}
		dst = binary.LittleEndian.AppendUint16(dst, uint16(c))
		dst = binary.LittleEndian.AppendUint16(dst, unknownPrice)
	}
	return dst
}

// readLinePrices fills costs from stored prices and reports whether they were there for
// exactly these lines.
func readLinePrices(extra []byte, costs []int) bool {
	if len(costs) == 0 || len(extra) != priceBytes*len(costs) {
		return false
	}
	for i := range costs {
		costs[i] = int(binary.LittleEndian.Uint16(extra[priceBytes*i:]))
	}
	return true
}

// NumberedCounts returns, for each line of text (as CountLines splits it), the CountLine of
// its numbered form "N│ R" (N the line's 1-based number) where RememberNumbered stored it, and
// -1 elsewhere; nil when text is not cached with its line prices (CountLines caches them).
// The slice is the caller's.
func (e *Encoder) NumberedCounts(text string) []int32 {
	if !e.cachedWhole(text) {
		return nil
	}
	var counts []int32
	e.texts.getExtra(e.texts.hash(text), text, func(extra []byte) {
		if len(extra) == 0 || len(extra)%priceBytes != 0 {
			return
		}
		counts = make([]int32, len(extra)/priceBytes)
		for i := range counts {
			counts[i] = -1
			if v := binary.LittleEndian.Uint16(extra[priceBytes*i+2:]); v != unknownPrice {
				counts[i] = int32(v)
			}
		}
	})
	return counts
}

// RememberNumbered stores, with text's line prices, the CountLine of the numbered forms that
// counts gives (as NumberedCounts returns them: one per line, -1 where not known). It does
// nothing when text is not cached with its prices, or counts has another length.
func (e *Encoder) RememberNumbered(text string, counts []int32) {
	if !e.cachedWhole(text) {
		return
	}
	e.texts.updateExtra(e.texts.hash(text), text, func(extra []byte) {
		if len(extra) != priceBytes*len(counts) {
			return
		}
		for i, c := range counts {
			if c >= 0 && c < unknownPrice {
				binary.LittleEndian.PutUint16(extra[priceBytes*i+2:], uint16(c))
			}
		}
	})
}
