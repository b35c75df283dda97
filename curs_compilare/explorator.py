"""Exploratoare interactive cu ipywidgets, care merg pe ipywidgets 7.7 (Colab) și 8.

Folosim doar piese care există în ambele versiuni: `SelectionSlider`, `Dropdown`,
`interactive_output`, `Output`, `VBox`/`HBox`. Unde widget-urile nu pot fi afișate
(ipywidgets lipsește sau CURS_FARA_WIDGETURI=1), exploratorul desenează o singură dată,
static, cu valorile implicite.

Exploratorul se afișează o singură dată, chiar dacă e ultima expresie a celulei: `exploreaza`
îl afișează și îl întoarce, iar caseta întoarsă nu se mai afișează a doua oară ca rezultat al
aceleiași celule (fără `;` sau `_ =` în notebook). Într-o celulă nouă, caseta se afișează din nou.
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
    caseta = _clasa_casetei()([widgets.HBox(list(elemente.values())), iesire])
    display(caseta)
    return caseta


def _celula_curenta():
    """Numărul celulei care rulează acum în IPython (`execution_count`), sau None în afara lui."""
    try:
        from IPython import get_ipython
    except Exception:  # noqa: BLE001
        return None
    shell = get_ipython()
    return getattr(shell, "execution_count", None) if shell is not None else None


_CLASA_CASETEI = None


def _clasa_casetei():
    """Un `VBox` care nu se afișează de două ori în aceeași celulă: `exploreaza` îl afișează, iar
    dacă celula se termină cu apelul, IPython ar afișa din nou valoarea întoarsă. Afișarea trece
    prin `_ipython_display_` (IPython o caută înaintea oricărei alte reprezentări, atât la
    `display(...)`, cât și la rezultatul celulei); a doua cerere din aceeași celulă nu face nimic.
    Restul e al lui `VBox`: ipywidgets 8 (`_repr_mimebundle_`) și 7.7 (`_ipython_display_`)."""
    global _CLASA_CASETEI
    if _CLASA_CASETEI is not None:
        return _CLASA_CASETEI
    import ipywidgets as widgets

    class CasetaExplorator(widgets.VBox):
        _afisata_in = ()  # celulele în care a fost deja afișată

        def _ipython_display_(self, **argumente):
            celula = _celula_curenta()
            if celula is not None and celula in self._afisata_in:
                return
            self._afisata_in = (*self._afisata_in, celula)
            parinte = getattr(super(), "_ipython_display_", None)
            if parinte is not None:  # ipywidgets 7
                return parinte(**argumente)
            from IPython.display import display

            date = self._repr_mimebundle_(**argumente) if callable(self._repr_mimebundle_) else None
            display(date or {"text/plain": repr(self)}, raw=True)

    _CLASA_CASETEI = CasetaExplorator
    return CasetaExplorator
