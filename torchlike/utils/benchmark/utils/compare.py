"""Compare: many Measurements as PyTorch's text table.

One table per label.  Rows are (thread count, env, sub_label or stmt), sorted
by thread count then env with first-seen order kept within; a line
"N threads: ----" opens each thread count.  Columns are descriptions in
first-seen order.  A cell is the median in the unit that suits the table's
fastest result.  Replicates (equal TaskSpecs) are merged first.  Options:
trim to significant figures, colour cells against the best of their column
(or row), and mark high-variance cells with their IQR / median."""
import enum
import itertools

import torchlike
from . import common

__all__ = ["Colorize", "Compare"]

BEST = "\033[92m"
GOOD = "\033[34m"
BAD = "\033[2m\033[91m"
VERY_BAD = "\033[31m"
BOLD = "\033[1m"
TERMINATE = "\033[0m"


class Colorize(enum.Enum):
    NONE = "none"
    COLUMNWISE = "columnwise"
    ROWWISE = "rowwise"


def _leading_digits(x: float) -> int:
    return int(torchlike.tensor(x).log10().ceil().item())


def _colored(text: str, value: float, best: float) -> str:
    """`text` coloured by how `value` compares with `best` (both seconds):
    within 1% (or 100 ns) best, within 10% good, 2x bad, 5x very bad."""
    if value <= best * 1.01 or value <= best + 100e-9:
        return BEST + BOLD + text + TERMINATE * 2
    if value <= best * 1.1:
        return GOOD + BOLD + text + TERMINATE * 2
    if value >= best * 5:
        return VERY_BAD + BOLD + text + TERMINATE * 2
    if value >= best * 2:
        return BAD + text + TERMINATE * 2
    return text


class _Column:
    """How one column's numbers are written: as many integer digits as its
    largest value needs, one decimal (or, when trimming, as many as its
    least precise value's significant figures allow), and room for a
    " (! XX%)" mark when warnings are highlighted and one of its cells has one."""

    def __init__(self, cells, scale, trim, highlight):
        present = [m for m in cells if m is not None]
        self._trim = trim
        self._highlight = highlight and any(m.has_warnings for m in present)
        digits = [_leading_digits(m.median / scale) for m in present]
        decimals = 1
        if trim:
            decimals = min(max(m.significant_figures - d, 0) for m, d in zip(present, digits))
        width = max(digits) + decimals + (1 if decimals else 0)
        mark_width = 7 if self._highlight else 0
        self._format = f"{{:>{width}.{decimals}f}}{{:>{mark_width}}}"

    def cell(self, value, sigfigs, spread):
        """`value` (in the table's unit) as text; None: blanks as wide as a number."""
        if value is None:
            return " " * len(self.cell(1, sigfigs, None))
        if self._trim:
            value = common.trim_sigfig(value, sigfigs)
        mark = f" (! {spread * 100:.0f}%)" if self._highlight and spread is not None else ""
        return self._format.format(value, mark)


class _Table:
    """One label's measurements laid out as rows and columns."""

    def __init__(self, results, colorize, trim, highlight):
        self.results = results
        self.label = results[0].label
        self._colorize = colorize
        self._highlight = highlight
        self.unit, self.scale = common.select_unit(min(m.median for m in results))

        envs = {m.env for m in results}
        if None in envs and len(envs) > 1:
            raise TypeError(f"Compare: the measurements labelled {self.label!r} mix env=None "
                            f"with named envs {sorted(e for e in envs if e is not None)}; give "
                            "every one an env, or none")
        for m in results:
            if m.description is None:
                raise TypeError(f"Compare: every Measurement needs a description (its column "
                                f"in the table); {m.title!r} has description=None")
        self.row_keys = common.ordered_unique(self._row_key(m) for m in results)
        self.row_keys.sort(key=lambda key: key[:2])  # stable: stmts keep their order
        self.column_keys = common.ordered_unique(m.description for m in results)

        # grid[i][j]: the measurement of row i, column j (None where there is none)
        rows = {key: i for i, key in enumerate(self.row_keys)}
        cols = {key: j for j, key in enumerate(self.column_keys)}
        self.grid = [[None] * len(self.column_keys) for _ in self.row_keys]
        for m in results:
            self.grid[rows[self._row_key(m)]][cols[m.description]] = m

        # groups: consecutive rows with one thread count, as (first row, end) ranges
        self.groups = []
        for i, key in enumerate(self.row_keys):
            if not self.groups or key[0] != self.row_keys[self.groups[-1][0]][0]:
                self.groups.append([i, i])
            self.groups[-1][1] = i + 1
        self.columns = [_Column([row[j] for row in self.grid], self.scale, trim, highlight)
                        for j in range(len(self.column_keys))]

    @staticmethod
    def _row_key(m):
        return m.num_threads, m.env, m.as_row_name

    def _row_texts(self):
        """Each row's cells as plain text (the first is env and row name)."""
        show_env = len({m.env for m in self.results}) > 1
        env_width = max(len(m.env) for m in self.results) if show_env else 0
        texts = []
        for start, end in self.groups:
            prior_env = ""
            for i in range(start, end):
                _, env, name = self.row_keys[i]
                tag = f"({env})" if show_env and env != prior_env else ""
                prior_env = env
                cells = ["  " + tag.ljust(env_width + 4) + name]
                for m, column in zip(self.grid[i], self.columns):
                    if m is None:
                        cells.append(column.cell(None, 1, None))
                    else:
                        cells.append(column.cell(m.median / self.scale, m.significant_figures,
                                                 m.iqr / m.median if m.has_warnings else None))
                texts.append(cells)
        return texts

    def _best(self, i, j):
        """The median row i's cell in column j is coloured against, or None."""
        if self._colorize == Colorize.ROWWISE:
            return min(m.median for m in self.grid[i] if m is not None)
        start, end = next(g for g in self.groups if g[0] <= i < g[1])
        medians = [self.grid[k][j].median for k in range(start, end)
                   if self.grid[k][j] is not None]
        return min(medians) if medians else None

    def render(self) -> str:
        header = [""] + list(self.column_keys)
        texts = self._row_texts()
        widths = [max(len(row[j]) for row in [header] + texts) for j in range(len(header))]
        head_line = "  |  ".join(t.center(w) for t, w in zip(header, widths))
        full_width = len(head_line)
        lines = [head_line]
        starts = {start: self.row_keys[start][0] for start, _ in self.groups}
        for i, cells in enumerate(texts):
            if i in starts:
                lines.append(f"{starts[i]} threads: ".ljust(full_width, "-"))
            out = [cells[0].ljust(widths[0])]
            for j, (text, width) in enumerate(zip(cells[1:], widths[1:])):
                text = text.center(width)
                m = self.grid[i][j]
                if self._colorize != Colorize.NONE and m is not None:
                    best = self._best(i, j)
                    if best is not None:
                        text = _colored(text, m.median, best)
                out.append(text)
            lines.append("  |  ".join(out))
        title = f"[{(' ' + (self.label or '') + ' ').center(full_width - 2, '-')}]"
        text = (f"{title}\n" + "\n".join(lines) + "\n\n"
                f"Times are in {common.unit_to_english(self.unit)}s ({self.unit}).\n")
        if self._highlight and any(m.has_warnings for m in self.results):
            text += ("(! XX%) Measurement has high variance, where XX is the IQR / median * "
                     "100.\n")
        return text


class Compare:
    """Print many Measurements as tables, PyTorch's layout: one table per
    label, a column per description, a row per sub_label (or stmt) and env,
    a section per thread count.  ``str(compare)`` or ``compare.print()``;
    ``trim_significant_figures()``, ``colorize(rowwise=False)`` and
    ``highlight_warnings()`` switch on the options."""

    def __init__(self, results):
        self._results = []
        self.extend_results(results)
        self._trim_significant_figures = False
        self._colorize = Colorize.NONE
        self._highlight_warnings = False

    def __str__(self) -> str:
        return "\n".join(self._render())

    def extend_results(self, results) -> None:
        """Add Measurements to those shown (all checked before any is added)."""
        results = list(results)
        for r in results:
            if not isinstance(r, common.Measurement):
                raise ValueError(f"Expected an instance of `Measurement`, got {type(r)} instead.")
        self._results.extend(results)

    def trim_significant_figures(self) -> None:
        """Write each number only to its estimated significant figures."""
        self._trim_significant_figures = True

    def colorize(self, rowwise=False) -> None:
        """Colour cells by how they compare with the best of their column
        (within each thread count), or of their row with rowwise=True."""
        self._colorize = Colorize.ROWWISE if rowwise else Colorize.COLUMNWISE

    def highlight_warnings(self) -> None:
        """Mark high-variance cells with " (! XX%)", XX the IQR / median in %."""
        self._highlight_warnings = True

    def print(self) -> None:
        print(str(self))

    def _render(self):
        by_label = {}
        for m in common.Measurement.merge(self._results):
            by_label.setdefault(m.label, []).append(m)
        return [_Table(group, self._colorize, self._trim_significant_figures,
                       self._highlight_warnings).render() for group in by_label.values()]
