"""Mecanismul comun al verificărilor: apelează codul cursantului fără să-l lase să arunce un
traceback și traduce fiecare greșeală într-o explicație scurtă, în română.

O verificare întoarce un `Rezultat`: adevărat dacă răspunsul e corect, fals altfel, cu
mesajul afișat frumos în notebook. Soluțiile îl folosesc cu `assert`, ca testele să cadă
dacă o soluție nu mai e corectă.
"""

from __future__ import annotations

import math
import numbers
from dataclasses import dataclass
from typing import Any, Callable

import torch

__all__ = [
    "Rezultat",
    "GresealaCursant",
    "apeleaza",
    "compara_tensori",
    "cere_numar",
    "verificare",
    "NESCRIS",
]

#: Mesajul pentru o soluție încă nescrisă (funcția ridică NotImplementedError).
NESCRIS = (
    "Încă n-ai scris soluția: funcția ridică NotImplementedError. "
    "Înlocuiește linia `raise NotImplementedError` cu codul tău."
)


@dataclass
class Rezultat:
    """Rezultatul unei verificări: `corect` și mesajul pentru cursant."""

    exercitiu: str
    corect: bool
    mesaj: str

    def __bool__(self) -> bool:
        return self.corect

    def text(self) -> str:
        if self.corect:
            return f"✅ {self.exercitiu}: corect! {self.mesaj}"
        return f"❌ {self.exercitiu}: {self.mesaj}"

    def __repr__(self) -> str:
        return self.text()

    def _repr_html_(self) -> str:
        import html

        culoare = "#e6f4ea" if self.corect else "#fdecea"
        bordura = "#34a853" if self.corect else "#d93025"
        return (
            f'<div style="background:{culoare};border-left:4px solid {bordura};'
            f'padding:8px 12px;white-space:pre-wrap">{html.escape(self.text())}</div>'
        )


class GresealaCursant(Exception):
    """Ridicată în interiorul unei verificări: mesajul ei (în română) ajunge la cursant."""


_SFATURI = {
    TypeError: "Verifică tipurile și numărul argumentelor.",
    ValueError: "O valoare nu are forma sau domeniul așteptat.",
    RuntimeError: "PyTorch a refuzat o operație: verifică formele, tipurile și dispozitivele tensorilor.",
    NameError: "Folosești un nume care nu e definit: ai rulat celulele de mai sus?",
    AttributeError: "Ai cerut un atribut care nu există pe acel obiect.",
    ZeroDivisionError: "Ai împărțit la zero.",
    IndexError: "Un indice iese din limite.",
}


def apeleaza(functie: Callable, *argumente, **argumente_numite) -> Any:
    """Apelează codul cursantului; orice excepție devine o `GresealaCursant` cu explicație."""
    if not callable(functie):
        raise GresealaCursant(
            f"Trebuia o funcție, dar am primit {type(functie).__name__}. Dă numele funcției, fără paranteze."
        )
    try:
        return functie(*argumente, **argumente_numite)
    except GresealaCursant:
        raise
    except NotImplementedError:
        raise GresealaCursant(NESCRIS) from None
    except Exception as eroare:  # orice altă eroare a codului cursantului
        sfat = next((s for tip, s in _SFATURI.items() if isinstance(eroare, tip)), "")
        raise GresealaCursant(
            f"Codul tău a ridicat {type(eroare).__name__}: {eroare}. {sfat}".strip()
        ) from None


def compara_tensori(obtinut: Any, asteptat: torch.Tensor, context: str = "", rtol=None, atol=None) -> None:
    """Ridică `GresealaCursant` cu o explicație dacă `obtinut` diferă de `asteptat`
    (None, alt tip, altă formă, alt dtype, alt dispozitiv, alte valori)."""
    unde = f" ({context})" if context else ""
    if obtinut is None:
        raise GresealaCursant(f"Funcția a întors None{unde}: ai uitat `return`?")
    if not isinstance(obtinut, torch.Tensor):
        raise GresealaCursant(f"Trebuia un tensor{unde}, dar am primit {type(obtinut).__name__}.")
    if obtinut.shape != asteptat.shape:
        raise GresealaCursant(
            f"Forma rezultatului e {tuple(obtinut.shape)}, dar trebuia {tuple(asteptat.shape)}{unde}."
        )
    if obtinut.dtype != asteptat.dtype:
        raise GresealaCursant(
            f"Tipul rezultatului e {obtinut.dtype}, dar trebuia {asteptat.dtype}{unde}."
        )
    if obtinut.device.type != asteptat.device.type:
        raise GresealaCursant(
            f"Rezultatul e pe {obtinut.device}, dar trebuia pe {asteptat.device}{unde}."
        )
    try:
        torch.testing.assert_close(obtinut, asteptat, rtol=rtol, atol=atol, equal_nan=True)
    except AssertionError:
        diferenta = (obtinut.double() - asteptat.double()).abs()
        diferenta = torch.nan_to_num(diferenta, nan=float("inf"))
        pozitie = tuple(int(i) for i in torch.unravel_index(diferenta.argmax(), diferenta.shape))
        gresite = int((~torch.isclose(obtinut.double(), asteptat.double(), equal_nan=True)).sum())
        raise GresealaCursant(
            f"Valorile diferă{unde}. Elemente greșite: {gresite} din {asteptat.numel()}; "
            f"cea mai mare diferență e la poziția {pozitie}: ai {obtinut[pozitie].item():.6g}, "
            f"trebuia {asteptat[pozitie].item():.6g}."
        ) from None


def cere_numar(valoare: Any, ce: str) -> float:
    """Verifică că răspunsul e un număr finit (nu None, nu text, nu NaN) și îl întoarce ca float."""
    if valoare is None:
        raise GresealaCursant(f"Pentru {ce} ai întors None: ai uitat `return`?")
    if isinstance(valoare, torch.Tensor) and valoare.numel() == 1:
        valoare = valoare.item()
    if isinstance(valoare, bool) or not isinstance(valoare, numbers.Real):
        raise GresealaCursant(f"Pentru {ce} trebuia un număr, dar am primit {type(valoare).__name__}.")
    valoare = float(valoare)
    if math.isnan(valoare) or math.isinf(valoare):
        raise GresealaCursant(f"Pentru {ce} ai obținut {valoare}: verifică împărțirile.")
    return valoare


def verificare(exercitiu: str, corp: Callable[[], str]) -> Rezultat:
    """Rulează `corp()`, care fie întoarce mesajul de succes, fie ridică `GresealaCursant`,
    și afișează și întoarce un `Rezultat`."""
    try:
        mesaj = corp()
        rezultat = Rezultat(exercitiu, True, mesaj or "")
    except GresealaCursant as greseala:
        rezultat = Rezultat(exercitiu, False, str(greseala))
    return rezultat
