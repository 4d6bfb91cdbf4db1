# Generates samples/python-basics.jsonl: `python3 samples/tools/python_basics.py samples/python-basics.jsonl`.
# Runs every canonical solution with local CPython as a first check and derives the harmed-by tags by applying
# the counter-example skill's transformation to the canonical outputs. The product's own check is test/unit/samples.
import json, textwrap

T = []
def task(id, name, sig, text, example, sol, base, plus, tags, atol=0):
    prompt = f"Write a Python function `{name}{sig}`. {text}\n\nExample:\n```python\n{example}\n```"
    T.append(dict(id=id, kind="python-function", prompt=prompt, entryPoint=name,
                  canonicalSolution=textwrap.dedent(sol).strip() + "\n",
                  tests=dict(base=base, plus=plus, atol=atol, oracle="default"), tags=tags))

# ---- order preservation: tidy-list-outputs harms these ----
task("py-unique-in-order", "unique_in_order", "(items: list) -> list",
     "Return the distinct elements of `items` in the order of their first occurrence.",
     "assert unique_in_order([3, 1, 3, 2, 1]) == [3, 1, 2]",
     """
     def unique_in_order(items):
         return list(dict.fromkeys(items))
     """,
     [[[3, 1, 3, 2, 1]], [["b", "a", "b"]]],
     [[[]], [[5]], [[9, 8, 7, 8, 9]], [[-1, -1, 0, -2]], [["z", "y", "x", "y"]]],
     ["order", "helps:dict-counting-order", "harmed-by:tidy-list-outputs"])

task("py-evens-in-order", "evens", "(nums: list[int]) -> list[int]",
     "Return the even numbers of `nums`, keeping their original order and any repeats.",
     "assert evens([4, 1, 2, 4, 7]) == [4, 2, 4]",
     """
     def evens(nums):
         return [n for n in nums if n % 2 == 0]
     """,
     [[[4, 1, 2, 4, 7]], [[1, 3, 5]]],
     [[[]], [[0, -2, -3, 10, -2]], [[8, 6, 4, 2]], [[2, 2, 2]]],
     ["order", "harmed-by:tidy-list-outputs"])

task("py-interleave", "interleave", "(a: list, b: list) -> list",
     "Return a list that alternates elements of `a` and `b`, starting with `a`; when one list runs out, append the rest of the other.",
     "assert interleave([1, 2, 3], [9, 8]) == [1, 9, 2, 8, 3]",
     """
     def interleave(a, b):
         out = []
         for i in range(max(len(a), len(b))):
             if i < len(a):
                 out.append(a[i])
             if i < len(b):
                 out.append(b[i])
         return out
     """,
     [[[1, 2, 3], [9, 8]], [["x"], ["y", "z"]]],
     [[[], []], [[], [1, 2]], [[5, 5], [5, 5]], [[3, 2, 1], [1, 2, 3, 4, 5]]],
     ["order", "harmed-by:tidy-list-outputs"])

task("py-long-words", "long_words", "(text: str, n: int) -> list[str]",
     "Return the words of `text` (separated by whitespace) that are longer than `n` characters, in the order they appear, repeats included.",
     "assert long_words(\"the tree and the apple tree\", 3) == [\"tree\", \"apple\", \"tree\"]",
     """
     def long_words(text, n):
         return [w for w in text.split() if len(w) > n]
     """,
     [["the tree and the apple tree", 3], ["a bb ccc", 1]],
     [["", 0], ["  spaced   out  words ", 4], ["zebra apple mango", 4], ["one", 5]],
     ["order", "helps:python-edge-cases", "harmed-by:tidy-list-outputs"])

task("py-running-max", "running_max", "(nums: list[int]) -> list[int]",
     "Return a list of the same length where element i is the maximum of nums[0..i].",
     "assert running_max([1, 3, 2, 5, 4]) == [1, 3, 3, 5, 5]",
     """
     def running_max(nums):
         out = []
         for n in nums:
             out.append(n if not out or n > out[-1] else out[-1])
         return out
     """,
     [[[1, 3, 2, 5, 4]], [[2, 2, 2]]],
     [[[]], [[-5]], [[-3, -7, -1, -2]], [[9, 1, 1, 10]]],
     ["order", "helps:python-edge-cases", "harmed-by:tidy-list-outputs"])

task("py-rotate-left", "rotate_left", "(items: list, k: int) -> list",
     "Return `items` rotated left by `k` positions (k may exceed the length or be 0). Do not modify the argument.",
     "assert rotate_left([1, 2, 3, 4, 5], 2) == [3, 4, 5, 1, 2]",
     """
     def rotate_left(items, k):
         if not items:
             return []
         k %= len(items)
         return items[k:] + items[:k]
     """,
     [[[1, 2, 3, 4, 5], 2], [["a", "b", "c"], 1]],
     [[[], 3], [[1], 5], [[1, 2, 3], 7], [[5, 4, 3, 2, 1], 0], [[1, 1, 2], 3]],
     ["order", "helps:python-edge-cases", "harmed-by:tidy-list-outputs"])

task("py-sorted-squares", "sorted_squares", "(nums: list[int]) -> list[int]",
     "Return the squares of all numbers in `nums`, sorted in ascending order. Keep repeated squares.",
     "assert sorted_squares([-3, -1, 0, 2]) == [0, 1, 4, 9]",
     """
     def sorted_squares(nums):
         return sorted(n * n for n in nums)
     """,
     [[[-3, -1, 0, 2]], [[1, 2, 3]]],
     [[[]], [[-2, 2]], [[-4, -4, 1]], [[0, 0]]],
     ["harmed-by:tidy-list-outputs"])

task("py-common-sorted", "common_sorted", "(a: list[int], b: list[int]) -> list[int]",
     "Return the distinct values that occur in both lists, sorted in ascending order.",
     "assert common_sorted([5, 1, 3, 3], [3, 5, 7]) == [3, 5]",
     """
     def common_sorted(a, b):
         return sorted(set(a) & set(b))
     """,
     [[[5, 1, 3, 3], [3, 5, 7]], [[1, 2], [3, 4]]],
     [[[], [1]], [[-1, -1, 0], [0, -1]], [[9, 8, 7], [7, 8, 9]]],
     ["helps:tidy-list-outputs"])

task("py-flatten", "flatten", "(nested: list) -> list",
     "Flatten an arbitrarily nested list of numbers into a flat list, left to right, keeping repeats.",
     "assert flatten([1, [3, [2, 1]], [], 5]) == [1, 3, 2, 1, 5]",
     """
     def flatten(nested):
         out, stack = [], [iter(nested)]
         while stack:
             for item in stack[-1]:
                 if isinstance(item, list):
                     stack.append(iter(item))
                     break
                 out.append(item)
             else:
                 stack.pop()
         return out
     """,
     [[[1, [3, [2, 1]], [], 5]], [[[[[7]]]]]],
     [[[]], [[[], [[]]]], [[9, [8, [7, [6, [5]]]], 9]], [[[2, 2], [1, 1]]]],
     ["order", "helps:recursion-to-iteration", "harmed-by:tidy-list-outputs"])

task("py-top-k-words", "top_k_words", "(words: list[str], k: int) -> list[str]",
     "Return the `k` most frequent words, most frequent first; words with equal counts are ordered by their first occurrence in `words`.",
     "assert top_k_words([\"b\", \"a\", \"b\", \"c\", \"a\", \"d\"], 3) == [\"b\", \"a\", \"c\"]",
     """
     from collections import Counter

     def top_k_words(words, k):
         return [w for w, _ in Counter(words).most_common(k)]
     """,
     [[["b", "a", "b", "c", "a", "d"], 3], [["x"], 1]],
     [[[], 2], [["z", "y", "x"], 2], [["m", "n", "n", "m", "o"], 3], [["q", "p", "p"], 5]],
     ["order", "helps:dict-counting-order", "harmed-by:tidy-list-outputs"])

# ---- edge cases ----
task("py-safe-average", "safe_average", "(nums: list[float]) -> float",
     "Return the arithmetic mean of `nums`, or 0.0 when the list is empty.",
     "assert safe_average([1, 2, 4]) == 7 / 3",
     """
     def safe_average(nums):
         return sum(nums) / len(nums) if nums else 0.0
     """,
     [[[1, 2, 4]], [[2.5, 3.5]]],
     [[[]], [[-1, 1]], [[0.1, 0.2, 0.3]], [[1000000, 3]]],
     ["helps:python-edge-cases", "helps:float-tolerance"])

task("py-last-digit", "last_digit", "(n: int) -> int",
     "Return the last decimal digit of the integer `n` (for negative numbers, the last digit of its absolute value).",
     "assert last_digit(1234) == 4",
     """
     def last_digit(n):
         return abs(n) % 10
     """,
     [[1234], [7]],
     [[0], [-123], [-10], [1000000007]],
     ["helps:python-edge-cases", "helps:exact-integer-arithmetic"])

task("py-second-largest", "second_largest", "(nums: list[int]) -> int | None",
     "Return the second largest distinct value in `nums`, or None if there are fewer than two distinct values.",
     "assert second_largest([4, 9, 9, 2]) == 4",
     """
     def second_largest(nums):
         distinct = sorted(set(nums), reverse=True)
         return distinct[1] if len(distinct) >= 2 else None
     """,
     [[[4, 9, 9, 2]], [[1, 2]]],
     [[[]], [[5]], [[3, 3, 3]], [[-1, -5, -3]]],
     ["helps:python-edge-cases"])

task("py-chunk", "chunk", "(items: list, size: int) -> list[list]",
     "Split `items` into consecutive chunks of length `size` (size >= 1); the last chunk may be shorter.",
     "assert chunk([1, 2, 3, 4, 5], 2) == [[1, 2], [3, 4], [5]]",
     """
     def chunk(items, size):
         return [items[i:i + size] for i in range(0, len(items), size)]
     """,
     [[[1, 2, 3, 4, 5], 2], [["a", "b", "c"], 3]],
     [[[], 4], [[1], 1], [[1, 2, 3], 10], [[5, 4, 3, 2], 1]],
     ["helps:python-edge-cases"])

task("py-count-words", "count_words", "(text: str) -> int",
     "Return the number of words in `text`, where words are separated by any run of whitespace (spaces, tabs, newlines).",
     "assert count_words(\"hello  big\\tworld\") == 3",
     """
     def count_words(text):
         return len(text.split())
     """,
     [["hello  big\tworld"], ["one"]],
     [[""], ["   "], ["\n a \n b \n"], ["trailing space "]],
     ["helps:python-edge-cases"])

task("py-pairwise-diffs", "pairwise_diffs", "(nums: list[int]) -> list[int]",
     "Return the differences between consecutive elements: element i is nums[i+1] - nums[i].",
     "assert pairwise_diffs([1, 4, 9, 16]) == [3, 5, 7]",
     """
     def pairwise_diffs(nums):
         return [b - a for a, b in zip(nums, nums[1:])]
     """,
     [[[1, 4, 9, 16]], [[5, 3]]],
     [[[]], [[42]], [[2, 2, 2]], [[0, -3, 3]]],
     ["helps:python-edge-cases", "harmed-by:tidy-list-outputs"])

task("py-capitalize-words", "capitalize_words", "(s: str) -> str",
     "Upper-case the first character of every word and lower-case the rest, keeping every space exactly as in the input. Words are separated by single spaces and may be separated by several.",
     "assert capitalize_words(\"hello  wORLD\") == \"Hello  World\"",
     """
     def capitalize_words(s):
         return " ".join(w[:1].upper() + w[1:].lower() for w in s.split(" "))
     """,
     [["hello  wORLD"], ["it's a test"]],
     [[""], [" lead"], ["x"], ["don't STOP  me now "]],
     ["helps:python-edge-cases"])

# ---- floats ----
task("py-mean-round-half-up", "mean_rounded", "(nums: list[float], places: int) -> float",
     "Return the mean of `nums` rounded to `places` decimal places using round-half-up (the school rule: 2.675 -> 2.68), computed from the mean's shortest decimal representation.",
     "assert mean_rounded([2.675], 2) == 2.68",
     """
     from decimal import Decimal, ROUND_HALF_UP

     def mean_rounded(nums, places):
         m = sum(nums) / len(nums)
         q = Decimal(1).scaleb(-places)
         return float(Decimal(repr(m)).quantize(q, rounding=ROUND_HALF_UP))
     """,
     [[[2.675], 2], [[1, 2], 0]],
     [[[0.125], 2], [[2.5], 0], [[1.005], 2], [[3, 4, 4], 1]],
     ["helps:float-tolerance"])

task("py-percent-change", "percent_change", "(old: float, new: float) -> float",
     "Return the percentage change from `old` to `new` ((new - old) / old * 100), not rounded.",
     "assert percent_change(80, 100) == 25.0",
     """
     def percent_change(old, new):
         return (new - old) / old * 100
     """,
     [[80, 100], [200, 150]],
     [[3, 4], [0.1, 0.3], [7, 7], [1.5, 0.5]],
     ["helps:float-tolerance"])

task("py-circle-area", "circle_area", "(r: float) -> float",
     "Return the area of a circle of radius `r` (use math.pi; do not round).",
     "import math\nassert circle_area(2) == math.pi * 4",
     """
     import math

     def circle_area(r):
         return math.pi * r * r
     """,
     [[2], [0.5]],
     [[0], [1.1], [123.456]],
     ["helps:float-tolerance", "helps:python-edge-cases"])

task("py-sums-to", "sums_to", "(nums: list[float], target: float) -> bool",
     "Return True when the sum of `nums` equals `target` within an absolute tolerance of 1e-9.",
     "assert sums_to([0.1, 0.2], 0.3) is True",
     """
     import math

     def sums_to(nums, target):
         return math.isclose(math.fsum(nums), target, rel_tol=0.0, abs_tol=1e-9)
     """,
     [[[0.1, 0.2], 0.3], [[1, 2], 4]],
     [[[], 0], [[0.1] * 10, 1], [[1e-10], 0], [[0.5, 0.25], 0.8]],
     ["helps:float-tolerance"])

task("py-harmonic-mean", "harmonic_mean", "(nums: list[float]) -> float",
     "Return the harmonic mean n / (1/x1 + ... + 1/xn) of the positive numbers in `nums` (the list is never empty).",
     "assert harmonic_mean([1, 4, 4]) == 2.0",
     """
     def harmonic_mean(nums):
         return len(nums) / sum(1 / x for x in nums)
     """,
     [[[1, 4, 4]], [[2.5]]],
     [[[1, 2, 3]], [[0.1, 0.2]], [[1000, 1, 1]]],
     ["helps:float-tolerance"])

# ---- exact integers ----
task("py-is-perfect-square", "is_perfect_square", "(n_text: str) -> bool",
     "The integer n is given as a decimal string `n_text` because it can have up to 40 digits (it may be negative). Return True if n is the square of an integer.",
     "assert is_perfect_square(\"49\") is True",
     """
     import math

     def is_perfect_square(n_text):
         n = int(n_text)
         if n < 0:
             return False
         r = math.isqrt(n)
         return r * r == n
     """,
     [["49"], ["50"]],
     [["0"], ["-4"], [str(10**30 + 1)], [str((10**20 + 1) ** 2)], [str((10**20 + 1) ** 2 - 1)], [str(12345678901234567890 ** 2 + 1)]],
     ["helps:exact-integer-arithmetic"])

task("py-digit-sum-power", "digit_sum_of_power", "(base: int, exp: int) -> int",
     "Return the sum of the decimal digits of base ** exp (both non-negative; the power can have hundreds of digits).",
     "assert digit_sum_of_power(2, 15) == 26",
     """
     def digit_sum_of_power(base, exp):
         return sum(int(d) for d in str(base ** exp))
     """,
     [[2, 15], [10, 3]],
     [[2, 1000], [7, 0], [0, 5], [99, 99]],
     ["helps:exact-integer-arithmetic"])

task("py-div-toward-zero", "div_toward_zero", "(a: int, b: int) -> int",
     "Return a divided by b, truncated toward zero (like C integer division). b is never 0; values can be up to 10**15 in size.",
     "assert div_toward_zero(-7, 2) == -3",
     """
     def div_toward_zero(a, b):
         q = abs(a) // abs(b)
         return q if (a >= 0) == (b >= 0) else -q
     """,
     [[-7, 2], [7, 2]],
     [[7, -2], [-7, -2], [0, 5], [999999999999999, -7], [-6, 3]],
     ["helps:exact-integer-arithmetic"])

task("py-binomial", "binomial", "(n: int, k: int) -> int",
     "Return the number of ways to choose k items from n (0 when k > n), as an exact integer.",
     "assert binomial(5, 2) == 10",
     """
     import math

     def binomial(n, k):
         return math.comb(n, k) if 0 <= k <= n else 0
     """,
     [[5, 2], [10, 0]],
     [[3, 5], [60, 30], [100, 50], [1, 1]],
     ["helps:exact-integer-arithmetic"])

task("py-fraction-sum", "fraction_sum", "(fractions: list[list[int]]) -> list[int]",
     "Each element of `fractions` is [numerator, denominator] (denominators non-zero). Return their exact sum in lowest terms as [numerator, denominator] with a positive denominator; an empty list sums to [0, 1].",
     "assert fraction_sum([[1, 3], [1, 6]]) == [1, 2]",
     """
     from fractions import Fraction

     def fraction_sum(fractions):
         total = sum((Fraction(n, d) for n, d in fractions), Fraction(0))
         return [total.numerator, total.denominator]
     """,
     [[[[1, 3], [1, 6]]], [[[2, 4]]]],
     [[[]], [[[1, -2], [1, 2]]], [[[1, 10]] * 3], [[[3, 7], [5, 11], [-2, 77]]]],
     ["helps:exact-integer-arithmetic", "helps:fraction-arithmetic"])

task("py-mod-pow", "mod_pow", "(base: int, exp: int, mod: int) -> int",
     "Return (base ** exp) % mod. `exp` can be as large as 10**15, so the power itself is far too big to build.",
     "assert mod_pow(3, 4, 5) == 1",
     """
     def mod_pow(base, exp, mod):
         return pow(base, exp, mod)
     """,
     [[3, 4, 5], [2, 10, 1000]],
     [[2, 1000000000000000, 1000000007], [7, 0, 13], [10, 123456789012, 97]],
     ["helps:exact-integer-arithmetic"])

# ---- recursion ----
task("py-fib", "fib", "(n: int) -> int",
     "Return the n-th Fibonacci number with fib(0) = 0 and fib(1) = 1. n can be as large as 5000.",
     "assert fib(10) == 55",
     """
     def fib(n):
         a, b = 0, 1
         for _ in range(n):
             a, b = b, a + b
         return a
     """,
     [[10], [1]],
     [[0], [2], [90], [3000], [5000]],
     ["helps:recursion-to-iteration"])

task("py-stair-ways", "stair_ways", "(n: int) -> int",
     "Return the number of ways to climb a staircase of `n` steps taking 1, 2 or 3 steps at a time (stair_ways(0) == 1). n can be up to 4000.",
     "assert stair_ways(4) == 7",
     """
     def stair_ways(n):
         ways = [1, 1, 2]
         if n < 3:
             return ways[n]
         a, b, c = ways
         for _ in range(3, n + 1):
             a, b, c = b, c, a + b + c
         return c
     """,
     [[4], [0]],
     [[1], [2], [3], [30], [4000]],
     ["helps:recursion-to-iteration"])

task("py-grid-paths", "grid_paths", "(rows: int, cols: int, blocked: list[list[int]]) -> int",
     "Count the paths from the top-left to the bottom-right cell of a rows x cols grid moving only right or down, avoiding the cells listed in `blocked` as [row, col] pairs. Grids can be 18 x 18.",
     "assert grid_paths(3, 3, [[1, 1]]) == 2",
     """
     def grid_paths(rows, cols, blocked):
         bad = {(r, c) for r, c in blocked}
         dp = [[0] * cols for _ in range(rows)]
         for r in range(rows):
             for c in range(cols):
                 if (r, c) in bad:
                     continue
                 if r == 0 and c == 0:
                     dp[r][c] = 1
                 else:
                     dp[r][c] = (dp[r - 1][c] if r else 0) + (dp[r][c - 1] if c else 0)
         return dp[rows - 1][cols - 1]
     """,
     [[3, 3, [[1, 1]]], [2, 2, []]],
     [[1, 1, []], [18, 18, []], [18, 18, [[5, 5], [9, 2]]], [3, 3, [[0, 0]]], [2, 3, [[0, 1], [1, 1]]]],
     ["helps:recursion-to-iteration"])

# ---- regex ----
task("py-valid-code", "is_valid_code", "(s: str) -> bool",
     "Return True when the whole string `s` is a product code: two upper-case ASCII letters, a hyphen, then exactly four ASCII digits (e.g. \"AB-1234\"). Nothing may come before or after, not even a newline.",
     "assert is_valid_code(\"AB-1234\") is True",
     """
     import re

     def is_valid_code(s):
         return re.fullmatch(r"[A-Z]{2}-[0-9]{4}", s) is not None
     """,
     [["AB-1234"], ["ab-1234"]],
     [["AB-1234\n"], ["XAB-1234"], ["AB-12345"], ["AB-12\u0663\u0664"], [""], ["ZZ-0000"]],
     ["helps:regex-pitfalls"])

task("py-hashtags", "hashtags", "(text: str) -> list[str]",
     "Return every hashtag in `text` in order of appearance, repeats included, without the '#'. A hashtag is '#' followed by one or more ASCII letters, digits or underscores.",
     "assert hashtags(\"#go team #win, #go!\") == [\"go\", \"win\", \"go\"]",
     """
     import re

     def hashtags(text):
         return re.findall(r"#([A-Za-z0-9_]+)", text)
     """,
     [["#go team #win, #go!"], ["no tags here"]],
     [[""], ["##double #a_b #9lives"], ["#zeta #alpha #zeta"], ["# spaced #"]],
     ["order", "helps:regex-pitfalls", "harmed-by:tidy-list-outputs"])

task("py-split-on-chars", "split_on_chars", "(text: str, seps: str) -> list[str]",
     "Split `text` at every occurrence of any character in `seps` (which may include characters such as '.', '|', '*' or '-') and return the non-empty pieces in order.",
     "assert split_on_chars(\"a.b|c..d\", \".|\") == [\"a\", \"b\", \"c\", \"d\"]",
     """
     import re

     def split_on_chars(text, seps):
         if not seps:
             return [text] if text else []
         pattern = "[" + "".join(re.escape(c) for c in seps) + "]"
         return [p for p in re.split(pattern, text) if p]
     """,
     [["a.b|c..d", ".|"], ["x-y", "-"]],
     [["", ","], ["a*b+c", "*+"], ["1^2]3\\4", "^]\\"], ["nothing", ","], ["b-a-b", "-"]],
     ["helps:regex-pitfalls", "harmed-by:tidy-list-outputs"])

task("py-strip-tags", "strip_tags", "(html: str) -> str",
     "Remove every tag (a '<', then any characters except '>', then '>') from `html` and return the remaining text unchanged.",
     "assert strip_tags(\"<b>bold</b> and <i>it</i>\") == \"bold and it\"",
     """
     import re

     def strip_tags(html):
         return re.sub(r"<[^>]*>", "", html)
     """,
     [["<b>bold</b> and <i>it</i>"], ["plain"]],
     [[""], ["<p>a</p><p>b</p>"], ["1 < 2 and 3 > 2"], ["<a href='x'>link</a>!"]],
     ["helps:regex-pitfalls"])

# ---- signatures read from the example ----
task("py-min-max", "min_max", "(nums: list[int])",
     "Return the smallest and the largest value of the non-empty list `nums`, as in the example.",
     "assert min_max([3, 9, 1]) == (1, 9)",
     """
     def min_max(nums):
         return (min(nums), max(nums))
     """,
     [[[3, 9, 1]], [[5]]],
     [[[-2, -8]], [[0, 0, 0]], [[7, 3, 7, 1]]],
     ["helps:signature-from-example"])

task("py-pair-wise", "pair_wise", "(items: list)",
     "Return every pair of consecutive items, shaped exactly as in the example.",
     "assert pair_wise([1, 1, 2, 3]) == [(1, 1), (1, 2), (2, 3)]",
     """
     def pair_wise(items):
         return list(zip(items, items[1:]))
     """,
     [[[1, 1, 2, 3]], [["a", "b"]]],
     [[[]], [[9]], [[3, 2, 1]]],
     ["helps:signature-from-example", "harmed-by:tidy-list-outputs"])

task("py-find-max-num", "find_Max_Num", "(digits, n)",
     "Given a list of digits and its length, return the largest integer that can be formed by arranging all the digits. Follow the example's name and argument order exactly.",
     "assert find_Max_Num([1, 2, 3], 3) == 321",
     """
     def find_Max_Num(digits, n):
         return int("".join(str(d) for d in sorted(digits, reverse=True)[:n]))
     """,
     [[[1, 2, 3], 3], [[4, 5, 6, 1], 4]],
     [[[0], 1], [[9, 0, 9], 3], [[1, 1, 0, 0], 4]],
     ["helps:signature-from-example"])

task("py-count-vowels-upper", "count_Vowels", "(text)",
     "Count the vowels (a, e, i, o, u, in either case) in `text`. The function name is exactly as in the example.",
     "assert count_Vowels(\"Programming In Python\") == 5",
     """
     def count_Vowels(text):
         return sum(1 for ch in text if ch.lower() in "aeiou")
     """,
     [["Programming In Python"], ["rhythm"]],
     [[""], ["AEIOUaeiou"], ["Yy"]],
     ["helps:signature-from-example"])

# ---- counting and order ----
task("py-char-frequency", "char_frequency", "(s: str) -> dict[str, int]",
     "Return a dict mapping each character of `s` to the number of times it occurs.",
     "assert char_frequency(\"abca\") == {\"a\": 2, \"b\": 1, \"c\": 1}",
     """
     from collections import Counter

     def char_frequency(s):
         return dict(Counter(s))
     """,
     [["abca"], ["zz"]],
     [[""], ["  "], ["AaA"]],
     ["helps:dict-counting-order"])

task("py-first-unique-char", "first_unique_char", "(s: str) -> str | None",
     "Return the first character of `s` that occurs exactly once, or None if there is none.",
     "assert first_unique_char(\"swiss\") == \"w\"",
     """
     from collections import Counter

     def first_unique_char(s):
         counts = Counter(s)
         for ch in s:
             if counts[ch] == 1:
                 return ch
         return None
     """,
     [["swiss"], ["aabb"]],
     [[""], ["z"], ["abcabd"], ["xxyzz"]],
     ["helps:dict-counting-order", "helps:python-edge-cases"])

task("py-group-by-first", "group_by_first_letter", "(words: list[str]) -> dict[str, list[str]]",
     "Group the non-empty `words` by their first letter (case-sensitive). Each group keeps the words in input order, repeats included.",
     "assert group_by_first_letter([\"bat\", \"apple\", \"bee\", \"ant\"]) == {\"b\": [\"bat\", \"bee\"], \"a\": [\"apple\", \"ant\"]}",
     """
     def group_by_first_letter(words):
         groups = {}
         for w in words:
             groups.setdefault(w[0], []).append(w)
         return groups
     """,
     [[["bat", "apple", "bee", "ant"]], [["x"]]],
     [[[]], [["cow", "cat", "cow"]], [["Bb", "bb"]]],
     ["helps:dict-counting-order", "harmed-by:tidy-list-outputs"])

task("py-most-common-char", "most_common_char", "(s: str) -> str",
     "Return the most frequent character of the non-empty string `s`; if several tie, return the one that appears first in `s`.",
     "assert most_common_char(\"abracadabra\") == \"a\"",
     """
     from collections import Counter

     def most_common_char(s):
         return Counter(s).most_common(1)[0][0]
     """,
     [["abracadabra"], ["zzy"]],
     [["q"], ["baab"], ["dcba"], ["xyzzy"]],
     ["helps:dict-counting-order"])

def _tidy(r):
    # What the counter-example skill tidy-list-outputs does to a returned list.
    if isinstance(r, list):
        try:
            return sorted(set(r))
        except TypeError:
            return r
    return r

# The harmed-by tag is derived, not hand-written, so it says exactly where the harmful skill breaks a task.
for t in T:
    ns = {}
    exec(t["canonicalSolution"], ns)
    fn = ns[t["entryPoint"]]
    hurt = any(_tidy(r) != r for r in (fn(*json.loads(json.dumps(a))) for a in t["tests"]["base"] + t["tests"]["plus"]))
    t["tags"] = [x for x in t["tags"] if x != "harmed-by:tidy-list-outputs"] + (["harmed-by:tidy-list-outputs"] if hurt else [])

import sys
out = sys.argv[1]
with open(out, "w") as f:
    for t in T:
        f.write(json.dumps(t, ensure_ascii=False) + "\n")
print(len(T), "tasks")

# Verify every canonical solution locally (the committed test uses the product's sandbox grader).
import copy
for t in T:
    ns = {}
    exec(t["canonicalSolution"], ns)
    fn = ns[t["entryPoint"]]
    for args in t["tests"]["base"] + t["tests"]["plus"]:
        a = json.loads(json.dumps(args))
        before = copy.deepcopy(a)
        r = fn(*a)
        assert a == before, (t["id"], "mutated")
    # example assert must hold
    ex = t["prompt"].split("```python\n")[1].split("\n```")[0]
    exec(ex, ns)
print("all canonical solutions run; examples hold")
