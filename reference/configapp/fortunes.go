package configapp

import "math/rand/v2"

// fortunes are traditional proverbs, the kind fortune(6) and fortune cookies
// carry; the greeting page shows one when greeting.displayFortune is true.
var fortunes = []string{
	"A journey of a thousand miles begins with a single step.",
	"Fortune favours the bold.",
	"Many hands make light work.",
	"Still waters run deep.",
	"The early bird catches the worm.",
	"Actions speak louder than words.",
	"Where there's a will, there's a way.",
	"A watched pot never boils.",
	"Fall seven times, stand up eight.",
	"Rome was not built in a day.",
	"Every cloud has a silver lining.",
	"Better late than never.",
	"He who hesitates is lost.",
	"The pen is mightier than the sword.",
	"When in Rome, do as the Romans do.",
	"A friend in need is a friend indeed.",
	"Slow and steady wins the race.",
	"Practice makes perfect.",
	"Little strokes fell great oaks.",
	"An apple a day keeps the doctor away.",
}

func randomFortune() string { return fortunes[rand.IntN(len(fortunes))] }
