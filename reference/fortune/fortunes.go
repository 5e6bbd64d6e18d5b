package fortune

import (
	"math/rand/v2"
	"sync/atomic"
)

// collection holds real, public-domain sayings, each with its author or
// source.
var collection = []string{
	"Early to bed and early to rise, makes a man healthy, wealthy and wise. -- Benjamin Franklin",
	"Three may keep a secret, if two of them are dead. -- Benjamin Franklin",
	"In this world nothing can be said to be certain, except death and taxes. -- Benjamin Franklin",
	"Be civil to all; sociable to many; familiar with few. -- Benjamin Franklin",
	"Always do right. This will gratify some people, and astonish the rest. -- Mark Twain",
	"Few things are harder to put up with than the annoyance of a good example. -- Mark Twain",
	"Truth is stranger than fiction, but it is because Fiction is obliged to stick to possibilities; Truth isn't. -- Mark Twain",
	"We are all in the gutter, but some of us are looking at the stars. -- Oscar Wilde",
	"I can resist everything except temptation. -- Oscar Wilde",
	"Experience is the name every one gives to their mistakes. -- Oscar Wilde",
	"Patience, n. A minor form of despair, disguised as a virtue. -- Ambrose Bierce",
	"Future, n. That period of time in which our affairs prosper, our friends are true and our happiness is assured. -- Ambrose Bierce",
	"Slow and steady wins the race. -- Aesop",
	"The journey of a thousand miles begins with a single step. -- Lao Tzu",
	"While we are postponing, life speeds by. -- Seneca",
	"Nothing great was ever achieved without enthusiasm. -- Ralph Waldo Emerson",
	"Our life is frittered away by detail. Simplify, simplify. -- Henry David Thoreau",
	"Fortune favours the brave. -- Terence",
	"Whom the gods love dies young. -- Menander",
	"Know thyself. -- inscription at Delphi",
	"Well begun is half done. -- Aristotle",
	"You cannot step twice into the same river. -- Heraclitus",
	"All that glisters is not gold. -- William Shakespeare",
	"The fault, dear Brutus, is not in our stars, but in ourselves. -- William Shakespeare",
	"There is nothing either good or bad, but thinking makes it so. -- William Shakespeare",
	"A merry heart doeth good like a medicine. -- Proverbs 17:22",
	"Hope springs eternal in the human breast. -- Alexander Pope",
	"Necessity is the mother of invention. -- proverb",
	"A fool and his money are soon parted. -- Thomas Tusser",
	"Haste makes waste. -- proverb",
}

// picker deals the collection in a random order fixed at start, one
// fortune per request: consecutive requests get different fortunes, and
// every fortune comes round once per len(collection) requests.
type picker struct {
	order []int
	next  atomic.Uint64
}

func newPicker() *picker {
	return &picker{order: rand.Perm(len(collection))}
}

func (p *picker) pick() string {
	i := p.next.Add(1) - 1
	return collection[p.order[i%uint64(len(p.order))]]
}
