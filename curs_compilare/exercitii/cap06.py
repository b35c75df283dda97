"""Verificările exercițiilor din capitolul 06 — modelul întreg (antrenare și servire compilate).

- Exercițiul 1: un program al ratei de învățare care nu recompilează (AdamW cu rata într-un
  tensor, pasul optimizatorului compilat).
- Exercițiul 2: alegerea modului de compilare pentru o constrângere de servire, din cifre măsurate.
- Exercițiul 3: compilarea regională a blocului repetat.
"""

from __future__ import annotations

import math

from .baza import Rezultat, verificare

__all__ = ["RATA_MAXIMA", "rata_la_pasul", "exercitiul_1", "exercitiul_2", "exercitiul_3"]

#: Rata de învățare maximă a programului (după încălzire).
RATA_MAXIMA = 1e-3


def rata_la_pasul(t: int, pasi_totali: int) -> float:
    """Rata de învățare a pasului `t` (numărat de la 0) dintr-o rulare de `pasi_totali` pași:
    încălzire liniară pe primii `max(1, pasi_totali // 10)` pași (pasul t are
    `RATA_MAXIMA · (t + 1) / încălzire`), apoi cosinus de la `RATA_MAXIMA` până la
    `RATA_MAXIMA / 10` la ultimul pas; după `pasi_totali`, rămâne `RATA_MAXIMA / 10`."""
    incalzire = max(1, pasi_totali // 10)
    if t < incalzire:
        return RATA_MAXIMA * (t + 1) / incalzire
    minima = RATA_MAXIMA / 10
    ramasi = max(1, pasi_totali - 1 - incalzire)
    progres = min(1.0, (t - incalzire) / ramasi)
    return minima + (RATA_MAXIMA - minima) * 0.5 * (1 + math.cos(math.pi * progres))


def _inca_nu(exercitiu: str) -> Rezultat:
    def corp():
        raise NotImplementedError("verificarea încă se scrie")

    return verificare(exercitiu, corp)


def exercitiul_1(pregateste_optimizarea) -> Rezultat:
    """Verifică `pregateste_optimizarea(model, pasi_totali) -> (optimizator, pas_optimizare)`."""
    return _inca_nu("Exercițiul 1")


def exercitiul_2(alege_modul) -> Rezultat:
    """Verifică `alege_modul(masuratori, cereri, latenta_max_ms, memorie_max_mib) -> str | None`."""
    return _inca_nu("Exercițiul 2")


def exercitiul_3(compileaza_regional) -> Rezultat:
    """Verifică `compileaza_regional(model) -> model`."""
    return _inca_nu("Exercițiul 3")
