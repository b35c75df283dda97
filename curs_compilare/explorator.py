"""Exploratoare interactive cu ipywidgets, care merg pe ipywidgets 7.7 (Colab) și 8.

Folosim doar piese care există în ambele versiuni: `SelectionSlider`, `Dropdown`,
`interactive_output`, `Output`, `VBox`/`HBox`. Unde widget-urile nu pot fi afișate
(ipywidgets lipsește sau CURS_FARA_WIDGETURI=1), exploratorul desenează o singură dată,
static, cu valorile implicite.
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Any, Callable, Sequence

__all__ = ["Control", "exploreaza", "widgeturi_disponibile"]


@dataclass
class Control:
    """Un control al exploratorului: o etichetă și o listă de opțiuni.

    `optiuni` este o listă de valori sau de perechi (etichetă, valoare). Dacă toate valorile
    sunt numere, controlul devine un glisor; altfel, o listă derulantă."""

    descriere: str
    optiuni: Sequence[Any]
    implicit: Any = None

    def perechi(self) -> list[tuple[str, Any]]:
        rezultat = []
        for o in self.optiuni:
            if isinstance(o, tuple) and len(o) == 2:
                rezultat.append((str(o[0]), o[1]))
            else:
                rezultat.append((str(o), o))
        return rezultat

    def valoare_implicita(self):
        valori = [v for _, v in self.perechi()]
        return self.implicit if self.implicit in valori else valori[0]

    def este_numeric(self) -> bool:
        return all(isinstance(v, (int, float)) and not isinstance(v, bool) for _, v in self.perechi())


def widgeturi_disponibile() -> bool:
    """Adevărat dacă ipywidgets se poate importa și nu s-a cerut modul static."""
    if os.environ.get("CURS_FARA_WIDGETURI") == "1":
        return False
    try:
        import ipywidgets  # noqa: F401
    except Exception:
        return False
    return True


def _widget(control: Control):
    import ipywidgets as widgets

    stil = {"description_width": "initial"}
    perechi = control.perechi()
    if control.este_numeric():
        return widgets.SelectionSlider(
            options=perechi,
            value=control.valoare_implicita(),
            description=control.descriere,
            continuous_update=False,
            style=stil,
        )
    return widgets.Dropdown(
        options=perechi, value=control.valoare_implicita(), description=control.descriere, style=stil
    )


def exploreaza(actualizeaza: Callable[..., Any], **controale: Control):
    """Construiește și afișează un explorator: la fiecare schimbare a unui control se apelează
    `actualizeaza(**valori)`, care desenează (matplotlib) sau tipărește rezultatul.

    Întoarce caseta de widget-uri, sau None în modul static."""
    implicite = {nume: c.valoare_implicita() for nume, c in controale.items()}
    if not widgeturi_disponibile():
        print(
            "Widget-urile interactive nu sunt disponibile aici; afișez o singură dată, "
            "cu valorile implicite: " + ", ".join(f"{k}={v}" for k, v in implicite.items())
        )
        actualizeaza(**implicite)
        return None

    import ipywidgets as widgets
    from IPython.display import display

    elemente = {nume: _widget(c) for nume, c in controale.items()}
    iesire = widgets.interactive_output(actualizeaza, elemente)
    caseta = widgets.VBox([widgets.HBox(list(elemente.values())), iesire])
    display(caseta)
    return caseta
