"""Textul notebook-urilor, pentru testele de conținut: celulele, proza, codul și șirurile de
caractere din cod (ce ajunge tipărit sau pe grafic), plus tiparele greșelilor de limbă și de
format corectate în curs, ca să nu revină."""

import ast
import re
from pathlib import Path

import nbformat

RADACINA = Path(__file__).resolve().parent.parent

# „apelare” / „apelări” ca substantiv (nu în identificatori ca `prima_apelare_s`)
APELARE = re.compile(r"(?<![\w])apel[aă]r[a-zăîâșț]*", re.IGNORECASE)
# persoana I plural, în locul lui „tu” („noi” lipsește: e și adjectiv, „procese noi”)
NOI = re.compile(
    r"\b(?:vom|nostru|noastră|noștri|numărăm|împărțim|rezolvăm|golim|măsurăm|compilăm|calculăm|facem|avem|putem|vedem|folosim)\b",
    re.IGNORECASE,
)
# specificatori de format care scriu numere altfel decât cursul: {x:.2f}, {x:g}, {x:.0%}, {x:,}
FORMAT_INTERZIS = re.compile(r"\{[^{}:'\"]+:[<>^=]?[+ -]?\d*[,_]?(?:\.\d+)?[fFgGeE%]\}|\{[^{}:'\"]+:[<>^=]?\d*,[^{}]*\}")


def celule(cale, tip: str) -> list:
    """Celulele de tipul `tip` („markdown” sau „code”) ale notebook-ului, în ordine."""
    return [c for c in nbformat.read(cale, as_version=4).cells if c.cell_type == tip]


def surse(cale, tip: str) -> list[str]:
    """Sursele celulelor de tipul `tip`."""
    return [c.source for c in celule(cale, tip)]


def markdown(cale) -> str:
    return "\n".join(surse(cale, "markdown"))


def cod(cale) -> str:
    return "\n".join(surse(cale, "code"))


def tot(cale) -> str:
    """Sursa tuturor celulelor, în ordinea din notebook."""
    return "\n".join(c.source for c in nbformat.read(cale, as_version=4).cells)


def siruri(sursa: str) -> list[str]:
    """Șirurile de caractere dintr-o sursă Python (fără comenzile `%` și `!` ale lui IPython)."""
    sursa = "\n".join(l for l in sursa.splitlines() if not l.lstrip().startswith(("%", "!")))
    return [n.value for n in ast.walk(ast.parse(sursa)) if isinstance(n, ast.Constant) and isinstance(n.value, str)]


def siruri_din_cod(cale) -> list[str]:
    """Șirurile de caractere din toate celulele de cod."""
    return [s for sursa in surse(cale, "code") for s in siruri(sursa)]
