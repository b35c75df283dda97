"""Fiecare nume folosit într-un notebook (capitol sau soluție) e definit undeva în el: importat,
atribuit, o funcție, o clasă. Testul citește codul fără să-l execute (pyflakes), deci prinde și
ramurile care rulează doar pe GPU, pe care testele de pe o mașină fără GPU nu le execută: un
import mutat sau un nume schimbat acolo s-ar vedea abia pe GPU-ul clasei."""

from __future__ import annotations

import ast
from pathlib import Path

import nbformat
import pytest
from pyflakes import messages
from pyflakes.checker import Checker

RADACINA = Path(__file__).resolve().parent.parent
NOTEBOOKURI = sorted((RADACINA / "notebooks").glob("*.ipynb")) + sorted((RADACINA / "solutions").glob("*.ipynb"))


def cod_notebook(cale: Path) -> str:
    """Celulele de cod, una după alta, fără liniile IPython („%matplotlib inline”, „!pip …”)."""
    celule = [c.source for c in nbformat.read(cale, as_version=4).cells if c.cell_type == "code"]
    return "\n".join(
        "\n".join(linie for linie in sursa.splitlines() if not linie.lstrip().startswith(("%", "!")))
        for sursa in celule
    )


def nume_legate(arbore: ast.AST) -> set[str]:
    """Toate numele pe care codul le leagă undeva: atribuiri, importuri, `def`, `class`, argumente."""
    legate = set()
    for nod in ast.walk(arbore):
        if isinstance(nod, ast.Name) and isinstance(nod.ctx, (ast.Store, ast.Del)):
            legate.add(nod.id)
        elif isinstance(nod, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            legate.add(nod.name)
        elif isinstance(nod, (ast.Import, ast.ImportFrom)):
            legate.update((a.asname or a.name).split(".")[0] for a in nod.names)
        elif isinstance(nod, ast.arg):
            legate.add(nod.arg)
    return legate


def nume_nedefinite(cod: str, nume_fisier: str = "<notebook>") -> list[str]:
    """Numele pe care pyflakes le găsește nedefinite și pe care codul nu le leagă nicăieri (o
    variabilă ștearsă cu `del` într-o ramură și folosită în alta nu e o greșeală de nume)."""
    arbore = ast.parse(cod)
    legate = nume_legate(arbore)
    return sorted({
        m.message_args[0] for m in Checker(arbore, filename=nume_fisier).messages
        if isinstance(m, messages.UndefinedName) and m.message_args[0] not in legate
    })


@pytest.mark.parametrize("cale", NOTEBOOKURI, ids=lambda c: c.name)
def test_niciun_nume_nedefinit(cale):
    nedefinite = nume_nedefinite(cod_notebook(cale), str(cale))
    assert not nedefinite, f"{cale.name}: nume folosite, dar nedefinite nicăieri în notebook: {', '.join(nedefinite)}"


def test_verificarea_prinde_un_nume_dintr_o_ramura_de_gpu():
    cod = "import torch\nif torch.cuda.is_available():\n    print(ocupare_gpu(pas))\nelse:\n    pas = 1\n"
    assert nume_nedefinite(cod) == ["ocupare_gpu"]
    assert nume_nedefinite("x = 1\ndef f():\n    return x\ndel x\n") == []
