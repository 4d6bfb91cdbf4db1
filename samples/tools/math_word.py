# Generates samples/math-word.jsonl: `python3 samples/tools/math_word.py samples/math-word.jsonl`.
# Answers are computed from the arithmetic written beside each problem; harmed-by tags mark money answers with cents.
import json, sys
from fractions import Fraction as F

T = []
def task(id, prompt, answer, tags, money=False):
    # answer: int, Fraction or a decimal string; checked against the arithmetic written beside it.
    if isinstance(answer, F) and answer.denominator != 1:
        text = f"\\frac{{{answer.numerator}}}{{{answer.denominator}}}"
    elif isinstance(answer, F):
        text = str(answer.numerator)
    else:
        text = str(answer)
    if money and "." in text and not text.endswith(".0"):
        tags = tags + ["harmed-by:round-money-whole-units"]
    T.append(dict(id=id, kind="math-answer", prompt=prompt, answer=text, tags=tags))

def dec(x: F) -> str:
    # exact decimal text of a terminating fraction, e.g. 45/4 -> "11.25"
    s = f"{float(x):.10f}".rstrip("0").rstrip(".")
    assert F(s) == x, (x, s)
    return s

# ---- money with cents (round-money-whole-units harms these) ----
task("math-pens-change", "Pens cost $1.25 each. Maya buys 7 pens and pays with a $20 bill. How much change does she get, in dollars?",
     dec(20 - 7 * F("1.25")), ["money", "helps:final-answer-check"], money=True)
task("math-cafe-order", "A cafe sells coffee for $3.40 and muffins for $2.15. Leo buys 2 coffees and 3 muffins. How many dollars does he spend?",
     dec(2 * F("3.40") + 3 * F("2.15")), ["money"], money=True)
task("math-apples-cents", "Apples cost 65 cents each. How many dollars do 9 apples cost?",
     dec(F(9 * 65, 100)), ["money", "helps:word-problem-units"], money=True)
task("math-wage-groceries", "Sara earns $14.50 per hour. She works 6 hours a day for 3 days, then spends $100.25 of her earnings on groceries. How many dollars of her earnings are left?",
     dec(F("14.50") * 6 * 3 - F("100.25")), ["money", "helps:word-problem-units"], money=True)
task("math-pizza-split", "A pizza costs $18.60 and 4 friends share the cost equally. How much does each friend pay, in dollars?",
     dec(F("18.60") / 4), ["money"], money=True)
task("math-shirt-sale", "A shirt costs $24.50. It is on sale for 20% off. What is the sale price in dollars?",
     dec(F("24.50") * F(80, 100)), ["money", "helps:fraction-arithmetic"], money=True)
task("math-daily-savings", "Tom saves 35 cents every day for 3 weeks. How many dollars has he saved?",
     dec(F(35, 100) * 21), ["money", "helps:word-problem-units"], money=True)
task("math-average-book", "Three books cost $12.50, $8.75 and $9.50. What is their average price in dollars?",
     dec((F("12.50") + F("8.75") + F("9.50")) / 3), ["money"], money=True)
task("math-fuel-trip", "A car uses 6 litres of fuel per 100 km, and fuel costs $1.50 per litre. How many dollars does the fuel for a 350 km trip cost?",
     dec(F(350, 100) * 6 * F("1.50")), ["money", "helps:word-problem-units"], money=True)
# ---- money with whole answers (the counter-example is harmless here) ----
task("math-bike-savings", "A bike costs $240. Ana has saved 3/8 of the price. How many more dollars does she need?",
     str(240 - 240 * 3 // 8), ["money", "helps:fraction-arithmetic"], money=True)
task("math-family-tickets", "Tickets cost $12 for adults and $7.50 for children. How many dollars do 2 adults and 4 children pay in total?",
     dec(2 * 12 + 4 * F("7.50")), ["money"], money=True)
task("math-eggs-dozen", "Eggs cost $3 per dozen. A bakery needs 180 eggs. How many dollars does it spend on eggs?",
     str(180 // 12 * 3), ["money", "helps:word-problem-units"], money=True)

# ---- units ----
task("math-train-minutes", "A train travels at 72 km per hour. How many kilometres does it travel in 25 minutes?",
     str(72 * 25 // 60), ["helps:word-problem-units"])
task("math-printer", "A printer prints 18 pages per minute. How many minutes does it take to print 3 reports of 90 pages each?",
     str(3 * 90 // 18), ["helps:word-problem-units"])
task("math-runner-pace", "A runner covers 400 metres in 80 seconds. At this pace, how many minutes does she need for 6 kilometres?",
     str(6000 // 400 * 80 // 60), ["helps:word-problem-units"])
task("math-flour-kg", "A recipe uses 250 grams of flour per loaf. How many kilograms of flour are needed for 18 loaves?",
     dec(F(250 * 18, 1000)), ["helps:word-problem-units"])
task("math-sleep-hours", "Jake sleeps 7 hours 30 minutes every night. How many hours does he sleep in 2 weeks?",
     dec(F(15, 2) * 14), ["helps:word-problem-units"])
task("math-dripping-tap", "A tap drips 15 millilitres of water every minute. How many litres drip in one day?",
     dec(F(15 * 60 * 24, 1000)), ["helps:word-problem-units"])
task("math-movie-end", "A movie is 2 hours 15 minutes long and starts at 7:50 pm. How many minutes after 9:00 pm does it end?",
     str((19 * 60 + 50 + 135) - 21 * 60), ["helps:word-problem-units"])
task("math-monthly-wage", "A worker is paid $18 per hour, works 8 hours a day and 5 days a week. How many dollars does the worker earn in 4 weeks?",
     str(18 * 8 * 5 * 4), ["money", "helps:word-problem-units"], money=True)
task("math-walk-speed", "Priya walks 5 km per hour. How many minutes does it take her to walk 1.5 km?",
     str(int(F("1.5") / 5 * 60)), ["helps:word-problem-units"])
task("math-rope-cm", "A rope 3 metres long is cut into pieces of 12 centimetres each. How many whole pieces are there?",
     str(300 // 12), ["helps:word-problem-units"])

# ---- fractions and percentages ----
task("math-of-the-rest", "Lena had $120. She spent 1/4 of it on books and then 1/3 of the rest on food. How many dollars does she have left?",
     str(int(120 * F(3, 4) * F(2, 3))), ["money", "helps:fraction-arithmetic"], money=True)
task("math-of-the-total", "Lena had $120. She spent 1/4 of it on books and 1/3 of it on food. How many dollars does she have left?",
     str(int(120 - 120 * F(1, 4) - 120 * F(1, 3))), ["money", "helps:fraction-arithmetic"], money=True)
task("math-marbles-back", "After giving away 2/5 of his marbles, Omar had 18 marbles left. How many marbles did he have at first?",
     str(int(18 / F(3, 5))), ["helps:fraction-arithmetic"])
task("math-fraction-of-day", "What fraction of a day is 16 hours? Give the answer as a fraction in lowest terms.",
     F(16, 24), ["helps:fraction-arithmetic", "helps:word-problem-units"])
task("math-tank-capacity", "A water tank is 3/8 full. After 30 litres are added it is 7/8 full. What is the capacity of the tank in litres?",
     str(int(30 / (F(7, 8) - F(3, 8)))), ["helps:fraction-arithmetic"])
task("math-book-left", "Jo reads 1/3 of a book on Monday and 1/4 of the book on Tuesday. What fraction of the book is still unread?",
     1 - F(1, 3) - F(1, 4), ["helps:fraction-arithmetic"])
task("math-up-down-percent", "A price rises by 20% and then falls by 20%. By what percent is the final price lower than the original price?",
     str(int((1 - F(6, 5) * F(4, 5)) * 100)), ["helps:fraction-arithmetic", "helps:final-answer-check"])
task("math-more-less-percent", "The number x is 25% more than the number y. By what percent is y less than x?",
     str(int((1 - 1 / F(5, 4)) * 100)), ["helps:fraction-arithmetic"])
task("math-walkers", "A class has 36 students and 5/9 of them are girls. 3/5 of the girls and 1/2 of the boys walk to school. How many students walk to school?",
     str(int(36 * F(5, 9) * F(3, 5) + 36 * F(4, 9) * F(1, 2))), ["helps:fraction-arithmetic"])
task("math-cups", "A recipe mixes 2/3 cup of sugar with 3/4 cup of flour. How many cups is that in total? Give the answer as a fraction in lowest terms.",
     F(2, 3) + F(3, 4), ["helps:fraction-arithmetic"])

# ---- checking the final answer ----
task("math-how-many-more", "Ben has 48 stickers and Carla has 3 times as many. How many more stickers does Carla have than Ben?",
     str(48 * 3 - 48), ["helps:final-answer-check"])
task("math-sheep", "A farmer has 120 sheep. He sells 1/3 of them and then buys 25 more. How many sheep does he have now?",
     str(120 - 40 + 25), ["helps:final-answer-check", "helps:fraction-arithmetic"])
task("math-gift-share", "Four friends share the cost of a $96 gift equally, and one of them also pays $5 for the wrapping. How many dollars does that friend pay in total?",
     str(96 // 4 + 5), ["money", "helps:final-answer-check"], money=True)
task("math-tripled", "A number is tripled and then 7 is subtracted, giving 41. What was the number?",
     str((41 + 7) // 3), ["helps:final-answer-check"])
task("math-consecutive-even", "The sum of two consecutive even numbers is 126. What is the larger of the two numbers?",
     str(126 // 2 + 1), ["helps:final-answer-check"])
task("math-rectangle-area", "A rectangle is 3 times as long as it is wide, and its perimeter is 64 cm. What is its area in square centimetres?",
     str(8 * 24), ["helps:final-answer-check", "helps:word-problem-units"])
task("math-ages-sum", "Mia is 4 years older than twice her brother's age. Their ages add up to 34. How old is Mia?",
     str(2 * 10 + 4), ["helps:final-answer-check"])
task("math-ages-future", "In 5 years Tom will be twice as old as he was 7 years ago. How old is Tom now?",
     str(19), ["helps:final-answer-check"])
task("math-empty-seats", "Each bus has 52 seats. 3 buses carry 140 students. How many seats are empty?",
     str(3 * 52 - 140), ["helps:final-answer-check"])
task("math-pencils-sold", "A store had 250 pencils. It sold 40% of them on Monday and 50 more on Tuesday. How many pencils did it sell in total?",
     str(100 + 50), ["helps:final-answer-check"])

# Cross-checks of answers written as closed forms above.
assert 19 + 5 == 2 * (19 - 7)
assert 10 + (2 * 10 + 4) == 34
assert 2 * (8 + 24) == 64 and 24 == 3 * 8
assert (126 // 2 - 1) + (126 // 2 + 1) == 126

with open(sys.argv[1], "w") as f:
    for t in T:
        f.write(json.dumps(t, ensure_ascii=False) + "\n")
print(len(T), "tasks;", sum("harmed-by:round-money-whole-units" in t["tags"] for t in T), "harmed by round-money")
for t in T:
    print(t["id"], t["answer"])
