"""Modelul costului compilării, unul singur pentru tot cursul (capitolele 00, 01 și 05, textul,
indiciile și verificările exercițiilor).

O variantă de rulare (eager, compilată, compilată cu `max-autotune`) are:

- **primul apel** (`prima_s`): la o variantă compilată, compilarea plus o rulare;
- **timpul pe apel** (`pe_apel_s`): cât durează fiecare apel de după primul.

Timpul total după `n` apeluri este `prima_s + (n − 1) · pe_apel_s`. La eager, primul apel e
un apel obișnuit (`prima_s = pe_apel_s`), deci totalul e `n · pe_apel_s`. Costul compilării
propriu-zise e ce adaugă primul apel peste unul obișnuit: `prima_s − pe_apel_s`; cu el,
totalul se scrie la fel de bine `compilare + n · pe_apel_s`.

Varianta B **s-a amortizat** față de varianta A la apelul `n` dacă, de la `n` încolo,
totalul lui B nu mai depășește totalul lui A.
"""

from __future__ import annotations

import math

__all__ = ["cost_total", "cost_compilare", "apel_de_amortizare", "FORMULA"]

#: Formula, scrisă o dată pentru textul capitolelor și pentru mesajele verificărilor.
FORMULA = "timpul total după n apeluri = primul apel + (n − 1) · timpul pe apel"


def cost_total(prima_s: float, pe_apel_s: float, n: int) -> float:
    """Timpul total al primelor `n` apeluri: `prima_s + (n − 1) · pe_apel_s`."""
    return prima_s + (n - 1) * pe_apel_s


def cost_compilare(prima_s: float, pe_apel_s: float) -> float:
    """Cât adaugă primul apel peste unul obișnuit (compilarea, reglarea): `prima_s − pe_apel_s`."""
    return prima_s - pe_apel_s


def apel_de_amortizare(prima_a_s: float, pe_apel_a_s: float, prima_b_s: float, pe_apel_b_s: float) -> int | None:
    """Cel mai mic `n ≥ 1` de la care varianta B a costat în total cel mult cât varianta A, și
    rămâne așa pentru orice număr mai mare de apeluri; None dacă nu există (B e mai lentă pe apel,
    sau la fel de rapidă, dar cu primul apel mai scump).

    Pentru eager față de compilat: `apel_de_amortizare(t_eager, t_eager, t_prima, t_compilat)`."""
    def ajunge(n: int) -> bool:
        return cost_total(prima_b_s, pe_apel_b_s, n) <= cost_total(prima_a_s, pe_apel_a_s, n)

    castig = pe_apel_a_s - pe_apel_b_s
    if castig < 0:
        return None  # B pierde la fiecare apel: orice avans inițial se termină
    if castig == 0:
        return 1 if prima_b_s <= prima_a_s else None
    n = max(1, 1 + math.ceil((prima_b_s - prima_a_s) / castig))
    while n > 1 and ajunge(n - 1):  # protecție față de rotunjirile în virgulă mobilă
        n -= 1
    while not ajunge(n):
        n += 1
    return n
