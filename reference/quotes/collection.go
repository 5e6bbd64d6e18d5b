package quotes

// collection holds real, public-domain quotations; ids are 1-based indexes.
var collection = []string{
	"Well done is better than well said. -- Benjamin Franklin",
	"Lost time is never found again. -- Benjamin Franklin",
	"Brevity is the soul of wit. -- William Shakespeare",
	"The course of true love never did run smooth. -- William Shakespeare",
	"Be not afraid of greatness: some are born great, some achieve greatness, and some have greatness thrust upon 'em. -- William Shakespeare",
	"To err is human, to forgive divine. -- Alexander Pope",
	"A little learning is a dangerous thing. -- Alexander Pope",
	"Hope is the thing with feathers that perches in the soul. -- Emily Dickinson",
	"A thing of beauty is a joy for ever. -- John Keats",
	"'Tis better to have loved and lost than never to have loved at all. -- Alfred, Lord Tennyson",
	"It is a truth universally acknowledged, that a single man in possession of a good fortune, must be in want of a wife. -- Jane Austen",
	"It was the best of times, it was the worst of times. -- Charles Dickens",
	"All happy families are alike; each unhappy family is unhappy in its own way. -- Leo Tolstoy",
	"I think, therefore I am. -- Rene Descartes",
	"The unexamined life is not worth living. -- Socrates",
	"The only thing we have to fear is fear itself. -- Franklin D. Roosevelt",
	"Ask not what your country can do for you; ask what you can do for your country. -- John F. Kennedy",
	"Four score and seven years ago our fathers brought forth on this continent a new nation. -- Abraham Lincoln",
	"Genius is one per cent inspiration and ninety-nine per cent perspiration. -- Thomas Edison",
	"Nothing will come of nothing. -- William Shakespeare",
}

// Quote is one quotation.
type Quote struct {
	ID    int    `json:"id"`
	Quote string `json:"quote"`
}

// Record is the quoters answer: a type ("success") and the quote.
type Record struct {
	Type  string `json:"type"`
	Value Quote  `json:"value"`
}

// All returns every quote of the collection, in id order.
func All() []Quote {
	all := make([]Quote, len(collection))
	for i, q := range collection {
		all[i] = Quote{ID: i + 1, Quote: q}
	}
	return all
}

// byID returns the quote with the given id.
func byID(id int) (Quote, bool) {
	if id < 1 || id > len(collection) {
		return Quote{}, false
	}
	return Quote{ID: id, Quote: collection[id-1]}, true
}
