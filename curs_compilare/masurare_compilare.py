"""Timpul compilării, măsurat cinstit: fără costul fix al primei compilări din proces și fără
ajutorul cache-urilor lui Inductor.

Două capcane strică o comparație între timpi de compilare făcută în același proces:

1. **Prima compilare din proces plătește o taxă fixă**: importul lui TorchInductor, pornirea
   proceselor care compilează în paralel, prima rulare a compilatorului C++ sau Triton,
   inițializarea CUDA. Pe un procesor cu două nuclee, taxa trece de 15 secunde. Oricare variantă
   ar fi compilată prima, ea o plătește și pare mai lentă decât e.
2. **Cache-urile**: o compilare făcută după alta își găsește în cache (pe disc și în memorie)
   kernel-urile pe care le are în comun cu ea și pare mai rapidă decât e.

Aici:
- `incalzeste_compilatorul()` plătește taxa o singură dată pe proces, compilând o funcție mică;
- `cache_gol()` dă compilării un cache gol (`torch._inductor.utils.fresh_cache`: un dosar
  nou pentru cache-urile lui Inductor și Triton și cache-urile din memorie golite);
- `timp_compilare(f, ...)` le aplică pe amândouă, apoi cronometrează primul apel;
- `timp_pana_la_regim(f, ...)` le aplică pe amândouă și cronometrează primele apeluri (implicit
  trei), fiecare sincronizat: timpul până la regimul staționar, cu tot ce face o funcție
  compilată doar la început (la `reduce-overhead`: încălzirea și capturarea grafului CUDA);
- `compara_compilari(...)` compilează mai multe variante, de câteva ori, în ordine alternată,
  fiecare într-o funcție nouă (cu propriul cache Dynamo), și dă mediana și împrăștierea.
"""

from __future__ import annotations

import contextlib
import dataclasses
import statistics
from dataclasses import dataclass
from typing import Callable, Mapping

import torch

from .masurare import Masuratoare, Raport, _cuantila, _pe_gpu, raport_din, timp_prima_apelare

__all__ = [
    "incalzeste_compilatorul",
    "cache_gol",
    "timp_compilare",
    "PornireCompilata",
    "timp_pana_la_regim",
    "Compilari",
    "compara_compilari",
    "invelis_nou",
]

# Dispozitivele („cpu”, „cuda”) pe care compilatorul a fost deja încălzit în acest proces.
_INCALZITE: dict[str, float] = {}

#: Cât variază, de la un proces la altul, timpul aceleiași compilări (muncă de procesor, cu
#: procese de compilare în paralel): două compilări care diferă cu mai puțin de 15% durează
#: „practic la fel”. Pe mașina de referință, aceeași compilare a variat cu până la ±15%.
TOLERANTA_COMPILARE = 0.15


@contextlib.contextmanager
def cache_gol():
    """Un cache gol pentru tot ce se compilează în bloc: un dosar temporar nou pentru
    cache-urile de pe disc ale lui Inductor și Triton (variabilele `TORCHINDUCTOR_CACHE_DIR`
    și `TRITON_CACHE_DIR`) și cache-urile din memorie golite. Unealta PyTorch pentru asta e
    `torch._inductor.utils.fresh_cache` (numită `fresh_inductor_cache` în versiunile vechi)."""
    from torch._inductor import utils

    proaspat = getattr(utils, "fresh_cache", None) or utils.fresh_inductor_cache
    with proaspat():
        yield


def _functie_de_incalzire(dispozitiv: str):
    strat = torch.nn.Linear(32, 32).to(dispozitiv)
    norma = torch.nn.LayerNorm(32).to(dispozitiv)

    def pas(x):
        return torch.nn.functional.gelu(norma(strat(x))).sum()

    x = torch.randn(8, 32, device=dispozitiv)
    return pas, x


def incalzeste_compilatorul(dispozitiv: str | torch.device | None = None) -> float | None:
    """Plătește, o singură dată pe proces și pe tip de dispozitiv, taxa fixă a primei
    compilări: compilează (cu un cache gol) și rulează o funcție mică, înainte și înapoi.
    Întoarce secundele pe care le-a costat, sau None dacă s-a făcut deja."""
    if dispozitiv is None:
        dispozitiv = "cuda" if torch.cuda.is_available() else "cpu"
    tip = torch.device(dispozitiv).type
    if tip in _INCALZITE:
        return None
    pas, x = _functie_de_incalzire(tip)
    compilat = torch.compile(invelis_nou(pas, "incalzire"))
    with cache_gol(), torch.enable_grad():  # și dacă notebook-ul a oprit gradienții
        durata = timp_prima_apelare(lambda: compilat(x).backward(), pe_gpu=tip == "cuda")
    _INCALZITE[tip] = durata
    return durata


def timp_compilare(functie_compilata: Callable, *argumente, pe_gpu: bool | None = None, fara_cache: bool = True) -> float:
    """Secundele primului apel al lui `functie_compilata(*argumente)` — compilarea plus o
    rulare —, după ce compilatorul a fost încălzit în proces și, implicit, cu un cache gol.

    `functie_compilata` trebuie să nu mai fi fost apelată (altfel n-ar mai compila nimic).
    Tot ce compilează primul apel (la un pas de antrenare, și calculul înapoi, dacă e
    inclus în `functie_compilata`) intră în timp."""
    if pe_gpu is None:
        pe_gpu = _pe_gpu(argumente)
    incalzeste_compilatorul("cuda" if pe_gpu else "cpu")
    context = cache_gol() if fara_cache else contextlib.nullcontext()
    with context:
        return timp_prima_apelare(functie_compilata, *argumente, pe_gpu=pe_gpu)


#: Câte apeluri are nevoie o funcție compilată ca să ajungă în regim staționar: la
#: `reduce-overhead`, apelul 1 rulează kernel-urile compilate pentru încălzire, apelul 2
#: capturează graful CUDA, abia apelul 3 îl reia; la modul implicit, apelul 1 compilează.
APELURI_PANA_LA_REGIM = 3


@dataclass(frozen=True)
class PornireCompilata:
    """Primele apeluri ale unei funcții compilate noi (`timp_pana_la_regim`): durata fiecăruia,
    în secunde, măsurată cu sincronizare înainte și după."""

    apeluri_s: tuple[float, ...]

    @property
    def total_s(self) -> float:
        """Timpul până la regim: suma primelor apeluri, T(1..k)."""
        return sum(self.apeluri_s)

    def prima_s(self, pe_apel_s: float) -> float:
        """Primul apel „echivalent” pentru modelul amortizării (`amortizare.cost_total`):
        `T(1..k) − (k − 1) · pe_apel_s`. Cu el, `prima + (n − 1) · pe_apel` dă exact T(1..k) la
        n = k și, de acolo încolo, fiecare apel în plus costă cât unul în regim staționar. Tot ce
        au cerut în plus primele k apeluri (compilarea, încălzirea, capturarea grafului CUDA)
        ajunge astfel în primul apel."""
        return self.total_s - (len(self.apeluri_s) - 1) * pe_apel_s


def timp_pana_la_regim(
    functie_compilata: Callable,
    *argumente,
    apeluri: int = APELURI_PANA_LA_REGIM,
    pe_gpu: bool | None = None,
    fara_cache: bool = True,
) -> PornireCompilata:
    """Cronometrează primele `apeluri` apeluri ale lui `functie_compilata(*argumente)`, fiecare
    separat și sincronizat, după ce compilatorul a fost încălzit în proces și, implicit, cu un
    cache gol pentru toate (și pentru apelul care capturează graful CUDA).

    `functie_compilata` trebuie să nu mai fi fost apelată. Spre deosebire de `timp_compilare`
    (doar primul apel), aici intră tot drumul până la regimul staționar: la `reduce-overhead`,
    încălzirea (apelul 1), capturarea grafului CUDA (apelul 2) și prima reluare (apelul 3).
    Costul pentru modelul amortizării îl dă `PornireCompilata.prima_s(pe_apel_s)`."""
    if apeluri < 1:
        raise ValueError("trebuie cel puțin un apel")
    if pe_gpu is None:
        pe_gpu = _pe_gpu(argumente)
    incalzeste_compilatorul("cuda" if pe_gpu else "cpu")
    context = cache_gol() if fara_cache else contextlib.nullcontext()
    with context:
        durate = tuple(timp_prima_apelare(functie_compilata, *argumente, pe_gpu=pe_gpu) for _ in range(apeluri))
    return PornireCompilata(durate)


def invelis_nou(functie: Callable, nume: str) -> Callable:
    """O funcție nouă care doar o apelează pe `functie`, cu propriul obiect de cod.

    Dynamo își ține compilările în obiectul de cod al funcției compilate. Două
    `torch.compile(f)` pe aceeași funcție `f` (sau pe același model) împart deci compilările:
    a doua nu mai compilează nimic. Un înveliș cu un obiect de cod nou are cache-ul lui Dynamo
    gol, iar `functie` e urmărită (și compilată) în interiorul lui."""

    def invelis(*argumente, **argumente_numite):
        return functie(*argumente, **argumente_numite)

    eticheta = "".join(c if c.isalnum() else "_" for c in nume)
    invelis.__code__ = invelis.__code__.replace(co_name=f"compilare_{eticheta}")
    invelis.__name__ = invelis.__qualname__ = f"compilare_{eticheta}"
    return invelis


@dataclass(frozen=True)
class Compilari:
    """Timpii primului apel ai mai multor variante de compilare (`compara_compilari`),
    funcțiile compilate la ultima repetare, gata de folosit mai departe, și durata apelurilor
    de după primul, la ultima repetare (`apelari_urmatoare`, în secunde)."""

    timpi: dict
    functii: dict
    apelari_urmatoare: dict

    def __getitem__(self, nume: str) -> Masuratoare:
        return self.timpi[nume]

    def raport(self, lenta: str, rapida: str) -> Raport:
        """De câte ori compilează `rapida` mai repede decât `lenta`, repetare cu repetare; sub
        `TOLERANTA_COMPILARE` (15%), diferența e socotită zgomot."""
        return dataclasses.replace(raport_din(self.timpi[lenta], self.timpi[rapida]), toleranta=TOLERANTA_COMPILARE)


def compara_compilari(
    variante: Mapping[str, tuple[Callable, dict]],
    *argumente,
    repetari: int = 2,
    pe_gpu: bool | None = None,
    apelari_dupa: int = 0,
) -> Compilari:
    """Compară timpul primului apel (compilarea plus o rulare) al mai multor variante.

    `variante` leagă un nume de o pereche `(functie, optiuni)`: varianta e
    `torch.compile(invelis_nou(functie), **optiuni)`, de exemplu
    `{"default": (f, {}), "max-autotune": (f, {"mode": "max-autotune"})}`.

    Încălzește întâi compilatorul, apoi compilează fiecare variantă de `repetari` ori, în
    ordine alternată (ABC, CBA, ...), de fiecare dată cu un cache gol și într-un înveliș nou;
    așa, nici ordinea, nici cache-urile nu mai schimbă rezultatul. `apelari_dupa` apeluri
    suplimentare rulează după primul (de exemplu, la `reduce-overhead`, încălzirea și
    capturarea grafului CUDA), în afara timpului măsurat."""
    if pe_gpu is None:
        pe_gpu = _pe_gpu(argumente)
    incalzeste_compilatorul("cuda" if pe_gpu else "cpu")
    nume_variante = list(variante)
    secunde: dict[str, list[float]] = {nume: [] for nume in nume_variante}
    functii: dict[str, Callable] = {}
    urmatoare: dict[str, list[float]] = {}
    for repetare in range(max(1, repetari)):
        ordine = nume_variante if repetare % 2 == 0 else nume_variante[::-1]
        for nume in ordine:
            functie, optiuni = variante[nume]
            compilata = torch.compile(invelis_nou(functie, f"{nume}_{repetare}"), **optiuni)
            secunde[nume].append(timp_compilare(compilata, *argumente, pe_gpu=pe_gpu))
            urmatoare[nume] = [timp_prima_apelare(compilata, *argumente, pe_gpu=pe_gpu) for _ in range(apelari_dupa)]
            functii[nume] = compilata
    timpi = {}
    for nume, valori in secunde.items():
        timpi[nume] = Masuratoare(
            mediana_s=statistics.median(valori),
            cuantila20_s=_cuantila(valori, 0.2),
            cuantila80_s=_cuantila(valori, 0.8),
            numar_rulari=len(valori),
            unealta="primul apel, cache gol, compilator încălzit",
            eticheta=nume,
            mediane_runde=tuple(valori),
            ceas="perete",
            pe_gpu=pe_gpu,
        )
    return Compilari(timpi=timpi, functii=functii, apelari_urmatoare=urmatoare)
