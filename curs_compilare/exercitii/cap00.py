"""Verificările exercițiilor din capitolul 00 — „Mediul de lucru și măsurarea corectă”."""

from __future__ import annotations

import math
import random

import torch

from ..cifre import cu_substantiv, format_numar, format_timp
from ..masurare import GPUSimulat, prag_rentabilitate
from .baza import GresealaCursant, Rezultat, apeleaza, cere_numar, verificare

__all__ = ["exercitiul_1", "exercitiul_2", "exercitiul_3"]


def _precis(valoare: float, unitate: str = "") -> str:
    """Un număr cu șase cifre semnificative, scris ca în curs („12,3457 s”): pentru mesajele în
    care două valori apropiate trebuie să se vadă diferite."""
    valoare = float(valoare)
    zecimale = 0 if valoare == 0 else max(0, 5 - math.floor(math.log10(abs(valoare))))
    text = format_numar(valoare, zecimale)
    if "," in text:
        text = text.rstrip("0").rstrip(",")
    return f"{text} {unitate}" if unitate else text


# ---------------------------------------------------------------------------------------------
# Exercițiul 1: o buclă de cronometrare corectă
# ---------------------------------------------------------------------------------------------


def exercitiul_1(masoara_corect) -> Rezultat:
    """Verifică `masoara_corect(lanseaza, sincronizeaza, repetari)`, care trebuie să întoarcă
    timpul unui apel, în secunde, pe un GPU simulat (asincron, cu compilare la primul apel).
    Încearcă două GPU-uri simulate cu durate diferite."""

    def corp():
        for durata_s in (0.004, 0.007):
            gpu = GPUSimulat(durata_lucrare_s=durata_s, durata_lansare_s=0.0001, durata_compilare_s=0.15)
            repetari = 15
            valoare = cere_numar(
                apeleaza(masoara_corect, gpu.lanseaza, gpu.sincronizeaza, repetari),
                "timpul unui apel",
            )
            raport = valoare / durata_s
            if gpu.lansari < 2:
                raise GresealaCursant(
                    f"Ai lansat lucrarea de prea puține ori ({gpu.lansari}): trebuie s-o repeți (încălzire, "
                    f"apoi cele {repetari} repetări)."
                )
            if gpu.sincronizari == 0:
                raise GresealaCursant(
                    f"N-ai apelat niciodată `sincronizeaza()`: ai măsurat doar cât durează lansarea "
                    f"({format_timp(valoare)}), nu lucrul GPU-ului ({format_timp(durata_s)}). "
                    "Pe un GPU, apelul se întoarce înainte ca lucrul să se termine."
                )
            if raport < 0.5:
                raise GresealaCursant(
                    f"Ai obținut {format_timp(valoare)}, mult sub cele {format_timp(durata_s)} ale lucrării: "
                    "oprești cronometrul înainte ca GPU-ul să termine. Sincronizează înainte de a citi ceasul."
                )
            if 0.5 * repetari < raport < 1.5 * repetari:
                raise GresealaCursant(
                    f"Ai întors {format_timp(valoare)}, cam de {repetari} ori prea mult: acesta e timpul "
                    "total al buclei. Împarte la numărul de repetări (sau ia mediana timpilor individuali)."
                )
            if 500 < raport < 2000:
                raise GresealaCursant(
                    f"Ai întors {format_numar(valoare)}, de aproximativ 1 000 de ori prea mult: probabil ai întors milisecunde. "
                    "Funcția trebuie să întoarcă secunde."
                )
            if raport > 1.4:
                raise GresealaCursant(
                    f"Ai obținut {format_timp(valoare)} în loc de aproximativ {format_timp(durata_s)}: ai "
                    "cronometrat și primul apel, care compilează (aici, 150 ms). Fă încălzirea înainte "
                    "să pornești cronometrul sau folosește mediana."
                )
        return (
            "Bucla ta așteaptă GPU-ul, lasă compilarea în afara cronometrului și măsoară "
            "timpul unui apel."
        )

    return verificare("Exercițiul 1", corp)


# ---------------------------------------------------------------------------------------------
# Exercițiul 2: GB/s dintr-un număr de octeți și un timp
# ---------------------------------------------------------------------------------------------

_GRESELI_GBPS = [
    ("ai numărat doar citirea (sau doar scrierea); operația citește x o dată și scrie rezultatul o dată",
     lambda n, e, t: n * e / t / 1e9),
    ("ai numărat elemente, nu octeți: înmulțește cu `x.element_size()`",
     lambda n, e, t: 2 * n / t / 1e9),
    ("ai numărat elemente, nu octeți, și doar o trecere prin memorie",
     lambda n, e, t: n / t / 1e9),
    ("ai împărțit la 2³⁰ (GiB); în cifrele de lățime de bandă 1 GB = 10⁹ octeți",
     lambda n, e, t: 2 * n * e / t / 2**30),
    ("ai lăsat rezultatul în octeți pe secundă; împarte la 10⁹ ca să obții GB/s",
     lambda n, e, t: 2 * n * e / t),
    ("rezultatul e de 1000 de ori prea mic: ai împărțit la 10¹² (TB/s) sau ai pus timpul în milisecunde",
     lambda n, e, t: 2 * n * e / t / 1e12),
    ("rezultatul e de 1000 de ori prea mare: timpul e deja în secunde, nu-l mai împărți la 1000",
     lambda n, e, t: 2 * n * e / t / 1e6),
]


def exercitiul_2(gbps_pentru_inmultire) -> Rezultat:
    """Verifică `gbps_pentru_inmultire(x, timp_s)`: lățimea de bandă, în GB/s, a operației
    `y = x * 2`, care citește x o dată și scrie y o dată, dacă a durat `timp_s` secunde.
    Se încearcă tensori de mai multe tipuri și forme."""

    generator = random.Random(0)
    cazuri = [
        (torch.empty(1000, 1000, dtype=torch.float32), 1e-4),
        (torch.empty(3, 5, 7, dtype=torch.float16), 2.5e-6),
        (torch.empty(12345, dtype=torch.float64), 3e-5),
        (torch.empty(64, 3, 32, 32, dtype=torch.bfloat16), generator.uniform(1e-5, 1e-3)),
        (torch.empty(4096, dtype=torch.int8), 7e-6),
    ]

    def corp():
        gresite = []
        for x, timp_s in cazuri:
            n, e = x.numel(), x.element_size()
            asteptat = 2 * n * e / timp_s / 1e9
            valoare = cere_numar(apeleaza(gbps_pentru_inmultire, x, timp_s), "lățimea de bandă")
            if not math.isclose(valoare, asteptat, rel_tol=1e-6):
                gresite.append((x, timp_s, valoare, asteptat))
        if not gresite:
            return "Ai numărat octeții citiți și scriși și i-ai împărțit corect la timp."
        for explicatie, formula in _GRESELI_GBPS:
            if all(
                math.isclose(valoare, formula(x.numel(), x.element_size(), t), rel_tol=1e-6)
                for x, t, valoare, _ in gresite
            ):
                raise GresealaCursant(explicatie[0].upper() + explicatie[1:] + ".")
        x, timp_s, valoare, asteptat = gresite[0]
        raise GresealaCursant(
            f"Pentru x de forma {tuple(x.shape)} și tipul {x.dtype}, în {format_timp(timp_s)}, ai obținut "
            f"{_precis(valoare, 'GB/s')}, dar trebuia {_precis(asteptat, 'GB/s')}. Numără octeții: "
            "x.numel() × x.element_size(), o dată citiți și o dată scriși."
        )

    return verificare("Exercițiul 2", corp)


# ---------------------------------------------------------------------------------------------
# Exercițiul 3: după câte apeluri se amortizează compilarea
# ---------------------------------------------------------------------------------------------


def _cazuri_rentabilitate():
    fixe = [
        (9.0, 3.0, 1.0),  # granița exactă: 9 + 3·1 = 12 = 4·3, deci n = 4
        (20.0, 0.010, 0.004),
        (0.002, 0.003, 0.001),  # primul apel e deja mai rapid decât eager
        (15.0, 0.005, 0.005),  # varianta compilată nu e mai rapidă: nu se amortizează niciodată
        (12.0, 0.004, 0.006),  # varianta compilată e mai lentă
    ]
    generator = random.Random(3)
    aleatoare = []
    for _ in range(20):
        eager = generator.uniform(1e-4, 1e-1)
        compilat = eager * generator.uniform(0.1, 0.95)
        prima = generator.uniform(1.0, 60.0)
        aleatoare.append((prima, eager, compilat))
    return fixe + aleatoare


def exercitiul_3(prag_rentabilitate_cursant) -> Rezultat:
    """Verifică `prag_rentabilitate_cursant(timp_prima, timp_eager, timp_compilat)`: cel mai mic
    număr de apeluri n după care totalul compilat (primul apel + n − 1 apeluri rapide) nu mai
    depășește totalul eager (n apeluri), sau None dacă asta nu se întâmplă niciodată."""

    def corp():
        for prima, eager, compilat in _cazuri_rentabilitate():
            asteptat = prag_rentabilitate(prima, eager, compilat)
            obtinut = apeleaza(prag_rentabilitate_cursant, prima, eager, compilat)
            descriere = (
                f"primul apel compilat {_precis(prima, 's')}, eager {_precis(eager, 's')}, compilat {_precis(compilat, 's')}"
            )
            if asteptat is None:
                if obtinut is None or (isinstance(obtinut, float) and math.isinf(obtinut)):
                    continue
                raise GresealaCursant(
                    f"Pentru {descriere}, varianta compilată nu e mai rapidă pe apel, deci nu se "
                    f"amortizează niciodată: trebuia să întorci None, nu {obtinut!r}."
                )
            if obtinut is None:
                raise GresealaCursant(
                    f"Pentru {descriere} ai întors None, dar compilarea se amortizează la apelul {asteptat}."
                )
            valoare = cere_numar(obtinut, "numărul de apeluri")
            if valoare != int(valoare):
                raise GresealaCursant(
                    f"Pentru {descriere} ai întors {format_numar(valoare)}: numărul de apeluri trebuie să fie întreg "
                    "(rotunjește în sus: un apel început se plătește întreg)."
                )
            valoare = int(valoare)
            if valoare == asteptat:
                continue
            fara_prima = math.ceil(prima / (eager - compilat)) if eager > compilat else None
            if valoare == asteptat - 1:
                raise GresealaCursant(
                    f"Pentru {descriere} ai întors {valoare}, cu una prea puțin: după "
                    f"{cu_substantiv(valoare, 'apel', 'apeluri')}, varianta compilată a costat "
                    f"{_precis(prima + (valoare - 1) * compilat, 's')}, mai mult decât eager ({_precis(valoare * eager, 's')}). "
                    "Rotunjește în sus."
                )
            if valoare == fara_prima:
                raise GresealaCursant(
                    f"Pentru {descriere} ai întors {valoare}, dar trebuia {asteptat}: primul apel compilat "
                    "rulează deja funcția o dată, deci după el mai urmează n − 1 apeluri rapide, nu n."
                )
            raise GresealaCursant(
                f"Pentru {descriere} ai întors {valoare}, dar trebuia {asteptat}. Scrie totalurile după n "
                "apeluri: eager = n · t_eager, compilat = t_prima + (n − 1) · t_compilat."
            )
        return "Ai găsit exact apelul de la care compilarea s-a plătit, inclusiv cazurile limită."

    return verificare("Exercițiul 3", corp)
