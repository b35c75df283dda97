"""Măsurători corecte: încălzire, sincronizare, variante măsurate intercalat, în runde, mediană și împrăștiere.

Disciplina de măsurare a cursului stă într-un singur loc, `compara` (și `masoara`, pentru o
singură funcție): încălzire, ceasul potrivit (evenimentele CUDA ale lui `triton.testing.do_bench`
pentru un apel limitat de GPU, ceasul de perete pentru unul limitat de procesor sau echilibrat,
după cât așteaptă GPU-ul într-o buclă, `ocupare_gpu`),
variantele măsurate pe rând în mai multe runde, mediana și împrăștierea, nicio recompilare în
timpul cronometrării. `Raport` e raportul a doi timpi, rundă cu rundă. Timpul compilării se
măsoară separat, în `masurare_compilare`.

Tot aici: conversiile din octeți și operații în GB/s și TFLOP/s, numărarea kernel-urilor cu
`torch.profiler` și plafonul de copiere al mașinii, pe care capitolele îl folosesc drept
„acoperiș”.
"""

from __future__ import annotations

import contextlib
import dataclasses
import inspect
import math
import re
import statistics
import time
import timeit
from collections import Counter
from dataclasses import dataclass, field, replace
from typing import Callable, Iterable, Mapping, Sequence

import torch
from torch.utils.benchmark.utils.timer import timer as ceas_torch_benchmark

from .cifre import format_timp
from .amortizare import apel_de_amortizare
from .mediu import dimensiune, sincronizeaza

__all__ = [
    "Masuratoare",
    "Raport",
    "Comparatie",
    "RecompilareInMasurare",
    "compara",
    "compara_pasi_ficsi",
    "raport_din",
    "masoara",
    "timp_prima_apelare",
    "NumarKerneluri",
    "numara_kerneluri",
    "nume_scurt_kernel",
    "EvenimentKernel",
    "cronologie_kerneluri",
    "lungime_reuniune",
    "clasifica_limitarea",
    "OcupareGPU",
    "ocupare_din_ferestre",
    "ocupare_din_evenimente",
    "ocupare_gpu",
    "ocupare_gpu_simulat",
    "durata_apel_in_bucla",
    "gbps",
    "tflops",
    "debit",
    "PlafonCopiere",
    "masoara_plafon_copiere",
    "prag_rentabilitate",
    "GPUSimulat",
]


# ---------------------------------------------------------------------------------------------
# Rezultatul unei măsurători
# ---------------------------------------------------------------------------------------------

#: Ceasurile cu care se poate măsura: timpul real scurs, văzut de program („perete”), sau
#: timpul GPU-ului, cu evenimente CUDA („gpu”, prin `triton.testing.do_bench`).
CEASURI = ("perete", "gpu")

#: Un apel e **limitat de GPU** când, într-o buclă de apeluri, GPU-ul lucrează cel puțin 90% din
#: timp (așteaptă sub 10%): procesorul lansează mai repede decât execută GPU-ul.
PRAG_LIMITAT_DE_GPU = 0.9
#: Un apel e **limitat de procesor** (*host-bound*) când GPU-ul lucrează sub 60% din timp: stă mai
#: mult de 40% așteptând lansările. Între cele două praguri, apelul e **echilibrat**: procesorul și
#: GPU-ul au nevoie de timpi apropiați, iar un procesor mai lent l-ar face limitat de procesor.
PRAG_LIMITAT_DE_PROCESOR = 0.6

#: Felurile în care poate fi limitat un apel pe GPU, spuse în cuvintele cursului.
LIMITARI = {"gpu": "limitat de GPU", "procesor": "limitat de procesor", "echilibrat": "echilibrat"}

#: Sub ce abatere față de 1 un raport de timpi e socotit „la fel”, chiar dacă rundele nu-l
#: încadrează pe 1 (3%).
TOLERANTA_LA_FEL = 0.03


@dataclass(frozen=True)
class Masuratoare:
    """Timpii unei funcții, după încălzire: mediana și împrăștierea (cuantilele 20% și 80%)
    ale tuturor rulărilor, plus mediana fiecărei runde (`mediane_runde`), din care se vede
    cât de stabilă e cifra de la o rundă la alta."""

    mediana_s: float
    cuantila20_s: float
    cuantila80_s: float
    numar_rulari: int
    unealta: str
    eticheta: str = ""
    mediane_runde: tuple[float, ...] = ()
    ceas: str = "perete"
    pe_gpu: bool = False
    #: Pe GPU: ce parte din timpul unei bucle de apeluri a lucrat GPU-ul (`ocupare_gpu`), și
    #: ce spune ea despre apel (o cheie din `LIMITARI`); None și "" pe procesor.
    ocupare_gpu: float | None = None
    limitare: str = ""

    @property
    def mediana_ms(self) -> float:
        return self.mediana_s * 1e3

    @property
    def mediana_us(self) -> float:
        return self.mediana_s * 1e6

    @property
    def imprastiere_relativa(self) -> float:
        """Lățimea intervalului 20–80% raportată la mediană (0,05 = ±2,5%)."""
        return (self.cuantila80_s - self.cuantila20_s) / self.mediana_s if self.mediana_s else 0.0

    @property
    def minim_runde_s(self) -> float:
        """Cea mai mică mediană de rundă (sau mediana, dacă n-au fost runde)."""
        return min(self.mediane_runde) if self.mediane_runde else self.mediana_s

    @property
    def maxim_runde_s(self) -> float:
        """Cea mai mare mediană de rundă (sau mediana, dacă n-au fost runde)."""
        return max(self.mediane_runde) if self.mediane_runde else self.mediana_s

    @property
    def depinde_de_procesor(self) -> bool:
        """Adevărat când cifra depinde și de procesorul mașinii, nu doar de GPU: pe un GPU,
        măsurată cu ceasul de perete (un apel limitat de procesor sau echilibrat); pe o mașină
        fără GPU, întotdeauna."""
        return self.ceas == "perete"

    def cifra_pentru_raport(self, unitate: str) -> tuple[float, tuple[float, float], bool]:
        """(valoarea, intervalul rundelor, depinde de procesor), în `unitate` („s”, „ms” sau
        „µs”): cum intră măsurătoarea în registrul de cifre (`cifre.inregistreaza`)."""
        factor = {"s": 1.0, "ms": 1e3, "µs": 1e6}[unitate]
        return (self.mediana_s * factor, (self.minim_runde_s * factor, self.maxim_runde_s * factor),
                self.depinde_de_procesor)

    def __str__(self) -> str:
        from .cifre import cu_substantiv

        runde = len(self.mediane_runde)
        rulari = cu_substantiv(self.numar_rulari, "rulare", "rulări")
        din = f"mediana a {rulari}" + (f" în {cu_substantiv(runde, 'rundă', 'runde')}" if runde > 1 else "")
        text = (
            f"{format_timp(self.mediana_s)} ({din}; "
            f"20–80%: {format_timp(self.cuantila20_s)} – {format_timp(self.cuantila80_s)}; "
            f"{self.unealta})"
        )
        return f"{self.eticheta}: {text}" if self.eticheta else text


@dataclass(frozen=True)
class Raport:
    """Raportul a doi timpi măsurați în aceleași runde (de exemplu eager / compilat = de
    câte ori e mai rapidă varianta compilată): mediana rapoartelor de rundă, cel mai mic și cel
    mai mare raport de rundă și cuantilele de 20% și 80% ale rapoartelor (`jos`, `sus`;
    implicit, minimul și maximul). Verdictul (`in_zgomot`, `mai_rapid`, `mai_lent`) și
    intervalul tipărit (`interval()`) folosesc aceleași capete, `capete_verdict`."""

    mediana: float
    minim: float
    maxim: float
    runde: int = 1
    depinde_de_procesor: bool = False
    jos: float | None = None
    sus: float | None = None
    toleranta: float = TOLERANTA_LA_FEL
    #: Pe GPU: cea mai „de procesor” dintre limitările celor două măsurători ("procesor",
    #: "echilibrat", "gpu"); "" când nu se știe (pe procesor, sau un raport construit de mână).
    limitare: str = ""

    @property
    def capete_verdict(self) -> tuple[float, float]:
        """Capetele intervalului după care se dă verdictul: cuantilele de 20% și 80% ale
        rapoartelor de rundă (`jos`, `sus`) sau, pentru un raport construit fără ele, cel mai mic
        și cel mai mare raport de rundă. `interval()` tipărește exact aceste capete."""
        return (self.minim if self.jos is None else self.jos, self.maxim if self.sus is None else self.sus)

    @property
    def in_zgomot(self) -> bool:
        """Adevărat când diferența nu se deosebește de zgomot: rundele din mijloc (între
        cuantilele de 20% și 80%) dau rapoarte și sub, și peste 1, sau mediana se abate de la 1
        cu cel mult `toleranta` (3%, implicit). O singură rundă aberantă nu schimbă verdictul."""
        jos, sus = self.capete_verdict
        return jos <= 1.0 <= sus or abs(self.mediana - 1.0) <= self.toleranta

    @property
    def mai_rapid(self) -> bool:
        """Varianta e clar mai rapidă decât referința (raport peste 1, dincolo de zgomot)."""
        return not self.in_zgomot and self.mediana > 1.0

    @property
    def mai_lent(self) -> bool:
        """Varianta e clar mai lentă decât referința (raport sub 1, dincolo de zgomot)."""
        return not self.in_zgomot and self.mediana < 1.0

    def cifra_pentru_raport(self, unitate: str = "×") -> tuple[float, tuple[float, float], bool]:
        """(mediana, intervalul rundelor, depinde de procesor): cum intră raportul în registrul de
        cifre (`cifre.inregistreaza`)."""
        return self.mediana, (self.minim, self.maxim), self.depinde_de_procesor

    def interval(self) -> str:
        """Intervalul după care se dă verdictul (`capete_verdict`): „20–80% din 5 runde: între
        2,25× și 2,4×” (cuantilele rapoartelor de rundă) sau, pentru un raport fără cuantile,
        „în 5 runde: între 2,25× și 2,4×” (toate rundele)."""
        from .cifre import cu_substantiv, cu_unitate

        if self.runde <= 1:
            return "o singură rundă"
        jos, sus = self.capete_verdict
        runde = cu_substantiv(self.runde, "rundă", "runde")
        care = f"20–80% din {runde}" if self.jos is not None and self.sus is not None else f"în {runde}"
        return f"{care}: între {cu_unitate(jos, '×')} și {cu_unitate(sus, '×')}"

    def __str__(self) -> str:
        from .cifre import cu_unitate

        return f"{cu_unitate(self.mediana, '×')} ({self.interval()})"


def _limitarea_comuna(*masuratori: Masuratoare) -> str:
    """Limitarea cea mai apropiată de procesor dintre cele ale măsurătorilor ("" dacă niciuna nu
    are una): „procesor”, apoi „echilibrat”, apoi „gpu”."""
    limitari = {m.limitare for m in masuratori}
    return next((l for l in ("procesor", "echilibrat", "gpu") if l in limitari), "")


def raport_din(numarator: Masuratoare, numitor: Masuratoare) -> Raport:
    """`numarator / numitor`, rundă cu rundă, când cele două au fost măsurate în aceleași runde
    (de `compara`); altfel, raportul medianelor, fără interval."""
    depinde = numarator.depinde_de_procesor or numitor.depinde_de_procesor
    limitare = _limitarea_comuna(numarator, numitor)
    if numarator.mediane_runde and len(numarator.mediane_runde) == len(numitor.mediane_runde):
        rapoarte = [a / b for a, b in zip(numarator.mediane_runde, numitor.mediane_runde) if b > 0]
        if rapoarte:
            return Raport(
                mediana=statistics.median(rapoarte),
                minim=min(rapoarte),
                maxim=max(rapoarte),
                runde=len(rapoarte),
                depinde_de_procesor=depinde,
                jos=_cuantila(rapoarte, 0.2),
                sus=_cuantila(rapoarte, 0.8),
                limitare=limitare,
            )
    valoare = numarator.mediana_s / numitor.mediana_s
    return Raport(valoare, valoare, valoare, 1, depinde, limitare=limitare)


@dataclass(frozen=True)
class Comparatie:
    """Mai multe variante ale aceluiași calcul, măsurate cu același ceas, intercalat, în runde
    (`compara`). `comparatie["eager"]` e măsurătoarea unei variante."""

    masuratori: dict
    ceas: str
    motiv_ceas: str = ""

    def __getitem__(self, nume: str) -> Masuratoare:
        return self.masuratori[nume]

    def __iter__(self):
        return iter(self.masuratori)

    def items(self):
        return self.masuratori.items()

    def accelerare(self, referinta: str, varianta: str) -> Raport:
        """De câte ori e mai rapidă `varianta` decât `referinta` (timpul referinței împărțit
        la timpul variantei), rundă cu rundă."""
        return raport_din(self.masuratori[referinta], self.masuratori[varianta])

    def __str__(self) -> str:
        latime = max(len(n) for n in self.masuratori)
        randuri = [f"{nume:<{latime}}  {format_timp(m.mediana_s)}" for nume, m in self.masuratori.items()]
        return "\n".join(randuri + [self.motiv_ceas] if self.motiv_ceas else randuri)


class RecompilareInMasurare(RuntimeError):
    """O funcție compilată s-a recompilat în timpul cronometrării: timpul ar fi inclus o
    compilare, deci măsurătoarea a fost oprită."""


def _pe_gpu(argumente: Iterable) -> bool:
    tensori = [a for a in argumente if isinstance(a, torch.Tensor)]
    if tensori:
        return any(t.is_cuda for t in tensori)
    return torch.cuda.is_available()


def _cuantila(valori: Sequence[float], q: float) -> float:
    ordonate = sorted(valori)
    if len(ordonate) == 1:
        return ordonate[0]
    pozitie = q * (len(ordonate) - 1)
    jos, sus = math.floor(pozitie), math.ceil(pozitie)
    return ordonate[jos] + (ordonate[sus] - ordonate[jos]) * (pozitie - jos)


def _ordinea_rundei(nume: Sequence[str], runda: int) -> list[str]:
    """Ordinea variantelor în runda `runda`: rotită cu câte o poziție de la o rundă la alta și
    inversată în rundele impare, ca nicio variantă să nu fie mereu prima sau după aceeași."""
    deplasare = runda % len(nume)
    ordine = list(nume[deplasare:]) + list(nume[:deplasare])
    if runda % 2:
        ordine.reverse()
    return ordine


@contextlib.contextmanager
def _fara_recompilari(activ: bool, nume: str = ""):
    """Cât ține blocul, o recompilare e o eroare (`set_stance("fail_on_recompile")`), tradusă
    într-o `RecompilareInMasurare` cu explicația în română."""
    if not activ or not hasattr(torch.compiler, "set_stance"):
        yield
        return
    try:
        with torch.compiler.set_stance("fail_on_recompile"):
            yield
    except RuntimeError as eroare:
        if "fail_on_recompile" not in str(eroare):
            raise
        from .inspectie import motiv_scurt

        varianta = f"Varianta „{nume}” s-a" if nume else "Funcția s-a"
        raise RecompilareInMasurare(
            f"{varianta} recompilat în timpul cronometrării, după încălzire: timpul ar fi inclus o "
            "compilare, așa că măsurătoarea s-a oprit. Cauze obișnuite: o formă nouă sau un tip de date "
            "nou, o valoare Python care se schimbă de la un apel la altul, trecerea între modurile train și eval. "
            f"Motivul dat de Dynamo: {motiv_scurt(str(eroare), 300)}"
        ) from eroare


def _enumera(nume: Sequence[str]) -> str:
    """„a”, „a” și „b”, „a”, „b” și „c”."""
    ghilimele = [f"„{n}”" for n in nume]
    return ghilimele[0] if len(ghilimele) == 1 else ", ".join(ghilimele[:-1]) + " și " + ghilimele[-1]


def _ceas_dupa_ocupare(ocupari: Mapping[str, "OcupareGPU | None"], variante: int) -> tuple[str, str]:
    """Ceasul ales după ocuparea GPU-ului fiecărei variante și propoziția care spune de ce: ceasul
    GPU-ului doar dacă toate variantele sunt limitate de GPU; altfel, ceasul de perete."""
    if any(o is None for o in ocupari.values()):
        return "perete", "Ceasul de perete: profilerul n-a putut urmări GPU-ul, deci nu știu cât așteaptă."
    procente = {nume: o.text_scurt() for nume, o in ocupari.items()}
    if all(o.limitare == "gpu" for o in ocupari.values()):
        detalii = "; ".join(f"„{n}”: {t}" for n, t in procente.items()) if variante > 1 else next(iter(procente.values()))
        return "gpu", (
            "Ceasul GPU-ului (evenimente CUDA, do_bench): "
            + ("apelurile sunt limitate" if variante > 1 else "apelul e limitat")
            + f" de GPU, într-o buclă GPU-ul aproape nu așteaptă ({detalii})."
        )
    parti = []
    for limitare in ("procesor", "echilibrat"):
        nume = [n for n, o in ocupari.items() if o.limitare == limitare]
        if not nume:
            continue
        e = "e" if len(nume) == 1 else "sunt"
        if limitare == "procesor":
            adjectiv = "limitat de procesor" if len(nume) == 1 else "limitate de procesor"
        else:
            adjectiv = "echilibrat" if len(nume) == 1 else "echilibrate"
        parti.append(f"{_enumera(nume) if variante > 1 else 'apelul'} {e} {adjectiv} ("
                     + "; ".join(procente[n] for n in nume) + ")")
    depind = "cifra depinde" if variante == 1 else "cifrele depind"
    return "perete", (
        "Ceasul de perete: " + "; ".join(parti) + f": GPU-ul așteaptă procesorul o parte din timp, deci {depind} "
        "și de procesorul mașinii."
    )


def compara(
    variante: Mapping[str, Callable],
    *argumente,
    runde: int = 5,
    timp_minim_s: float = 0.2,
    incalziri: int = 3,
    pe_gpu: bool | None = None,
    ceas: str = "auto",
    pazeste_recompilari: bool = True,
) -> Comparatie:
    """Măsoară mai multe variante ale aceluiași calcul, `varianta(*argumente)`, corect și
    comparabil. Disciplina de măsurare a cursului, într-un singur loc:

    1. **încălzirea**: câteva apelări necronometrate ale fiecărei variante (prima apelare a
       unei funcții compilate o compilează; pe aceea o măsori separat, cu `timp_compilare`);
    2. **ceasul**, același pentru toate variantele (`ceas="auto"` îl alege). Pe GPU, alegerea
       vine din cât **așteaptă GPU-ul** într-o buclă de apeluri (`ocupare_gpu`: câteva apeluri
       consecutive sub `torch.profiler`, timpul în care a lucrat GPU-ul față de timpul buclei):
       - **limitat de GPU** (GPU-ul lucrează cel puțin 90% din timp): evenimente CUDA prin
         `triton.testing.do_bench`, care golește și cache-ul L2 înaintea fiecărei rulări;
       - **limitat de procesor** (GPU-ul lucrează sub 60%: așteaptă lansări, gărzi, Python) sau
         **echilibrat** (între cele două): ceasul de perete, `timeit`, cu ceasul lui
         `torch.utils.benchmark`, care sincronizează GPU-ul — timpul pe care îl simte programul
         într-o buclă. Cifra depinde atunci și de procesorul mașinii.
       (`do_bench` ar ascunde costul procesorului: cât timp GPU-ul golește cache-ul,
       procesorul apucă să lanseze o parte din apel „pe gratis”.) Pe procesor există doar ceasul
       de perete. Cu `ceas="perete"` sau `ceas="gpu"` alegi tu, și spui în text de ce;
    3. **variante intercalate, în runde**: `runde` runde (cel puțin 5 pentru o comparație),
       în fiecare câte un bloc de rulări din fiecare variantă, în altă ordine de la o rundă la
       alta, ca o schimbare lentă a mașinii (frecvența, alte programe) să le atingă pe toate
       la fel;
    4. **mediana și împrăștierea**: pentru fiecare variantă, mediana tuturor rulărilor,
       cuantilele 20% și 80% și mediana fiecărei runde (din ele, `Comparatie.accelerare`
       dă raportul rundă cu rundă);
    5. **nicio recompilare în timpul cronometrării**: rundele rulează sub
       `torch.compiler.set_stance("fail_on_recompile")`; o recompilare oprește măsurătoarea cu
       o `RecompilareInMasurare`, explicată în română.

    `timp_minim_s` e cât timp, cel puțin, se cronometrează fiecare variantă, în total.
    """
    if ceas not in ("auto", *CEASURI):
        raise ValueError(f"ceas trebuie să fie 'auto', 'perete' sau 'gpu', nu {ceas!r}")
    if not variante:
        raise ValueError("compara are nevoie de cel puțin o variantă")
    runde = max(1, int(runde))
    if pe_gpu is None:
        pe_gpu = _pe_gpu(argumente)

    apeluri = {nume: (lambda f=f: f(*argumente)) for nume, f in variante.items()}

    # 1. încălzirea și o estimare a duratei unui apel
    estimari = {}
    for nume, apel in apeluri.items():
        apel()
        if pe_gpu:
            sincronizeaza()
        with _fara_recompilari(pazeste_recompilari, nume):
            start = time.perf_counter()
            for _ in range(max(1, incalziri - 1)):
                apel()
            if pe_gpu:
                sincronizeaza()
        estimari[nume] = max((time.perf_counter() - start) / max(1, incalziri - 1), 1e-7)

    # 2. ceasul
    ocupari: dict[str, "OcupareGPU | None"] = {}
    limitari = {nume: "" for nume in apeluri}
    do_bench = None
    if pe_gpu and ceas != "perete":
        try:
            from triton.testing import do_bench
        except Exception:  # fără triton: doar ceasul de perete
            do_bench = None
    if not pe_gpu:
        ceas_ales, motiv = "perete", "Ceasul de perete: pe procesor nu există altul."
    elif ceas == "perete" or do_bench is None:
        ceas_ales = "perete"
        motiv = "Ceasul de perete, ales explicit." if ceas == "perete" else "Ceasul de perete (triton lipsește)."
    elif ceas == "gpu":
        ceas_ales, motiv = "gpu", "Ceasul GPU-ului (evenimente CUDA, do_bench), ales explicit."
    else:
        with _fara_recompilari(pazeste_recompilari):
            ocupari = {nume: ocupare_gpu(apel, estimare_s=estimari[nume]) for nume, apel in apeluri.items()}
        ceas_ales, motiv = _ceas_dupa_ocupare(ocupari, len(apeluri))
    if ocupari:
        limitari = {nume: (o.limitare if o is not None else "") for nume, o in ocupari.items()}

    # 3. rundele: variantele intercalate
    buget_runda_s = timp_minim_s / runde
    # ceasul de perete: `timeit` cu ceasul lui torch.utils.benchmark, care sincronizează GPU-ul
    # înainte de fiecare citire (pe procesor e ceasul obișnuit)
    cronometre = {nume: timeit.Timer(apel, timer=ceas_torch_benchmark) for nume, apel in apeluri.items()}
    esantioane: dict[str, list[float]] = {nume: [] for nume in apeluri}
    mediane: dict[str, list[float]] = {nume: [] for nume in apeluri}
    rulari = {nume: 0 for nume in apeluri}
    nume_variante = list(apeluri)
    for runda in range(runde):
        for nume in _ordinea_rundei(nume_variante, runda):
            with _fara_recompilari(pazeste_recompilari, nume):
                if ceas_ales == "gpu":
                    timpi_ms = do_bench(
                        apeluri[nume], warmup=1, rep=max(1, int(buget_runda_s * 1e3)), return_mode="all"
                    )
                    timpi = [t / 1e3 for t in timpi_ms]
                    rulari[nume] += len(timpi)
                else:
                    # blocuri de ~2 ms, cel puțin 3 pe rundă. Pe GPU, un bloc are cel puțin 3 apeluri
                    # consecutive: ca într-o buclă reală, procesorul lansează apelul următor cât
                    # GPU-ul îl execută pe cel curent. Pe procesor, un apel lent e un bloc.
                    pe_bloc = max(3 if pe_gpu else 1, int(0.002 / estimari[nume]))
                    blocuri = min(200, max(3, int(buget_runda_s / (pe_bloc * estimari[nume]))))
                    timpi = [cronometre[nume].timeit(pe_bloc) / pe_bloc for _ in range(blocuri)]
                    rulari[nume] += blocuri * pe_bloc
            esantioane[nume].extend(timpi)
            mediane[nume].append(statistics.median(timpi))

    unealta = "ceasul GPU-ului, do_bench" if ceas_ales == "gpu" else "ceasul de perete, timeit"
    masuratori = {
        nume: Masuratoare(
            mediana_s=statistics.median(esantioane[nume]),
            cuantila20_s=_cuantila(esantioane[nume], 0.2),
            cuantila80_s=_cuantila(esantioane[nume], 0.8),
            numar_rulari=rulari[nume],
            unealta=unealta,
            eticheta=nume,
            mediane_runde=tuple(mediane[nume]),
            ceas=ceas_ales,
            pe_gpu=pe_gpu,
            ocupare_gpu=ocupari[nume].parte if ocupari.get(nume) is not None else None,
            limitare=limitari[nume],
        )
        for nume in apeluri
    }
    return Comparatie(masuratori=masuratori, ceas=ceas_ales, motiv_ceas=motiv)


def compara_pasi_ficsi(
    variante: Mapping[str, Callable[[], object]],
    *,
    runde: int = 5,
    pasi_pe_runda: int = 5,
    pe_gpu: bool = False,
    inainte_de_bloc: Callable[[], object] | None = None,
    combina: Callable[[float], float] | None = None,
) -> Comparatie:
    """`compara` pentru codul care rulează în mai multe procese (rangurile lui `torchrun`): același
    fel de runde, cu variantele intercalate, dar cu un număr **fix** de runde și de pași, ca toate
    rangurile să facă exact aceleași operații colective (`compara` își alege numărul de rulări
    după timp, iar două ranguri care aleg altfel se blochează unul pe altul). Ceasul de perete;
    încălzirea (și compilarea) le face cel care cheamă, înainte.

    Înaintea fiecărui bloc de `pasi_pe_runda` pași se cheamă `inainte_de_bloc()` (de exemplu o
    barieră între ranguri) și se sincronizează GPU-ul; după bloc, din nou. `combina(secunde)`
    întoarce durata pe pas care se păstrează (de exemplu, maximul dintre ranguri, prin
    `all_reduce`). Mediana și cuantilele sunt ale rundelor."""
    if not variante:
        raise ValueError("compara_pasi_ficsi are nevoie de cel puțin o variantă")
    runde, pasi_pe_runda = max(1, int(runde)), max(1, int(pasi_pe_runda))
    nume_variante = list(variante)
    pe_runda: dict[str, list[float]] = {nume: [] for nume in nume_variante}
    for runda in range(runde):
        for nume in _ordinea_rundei(nume_variante, runda):
            if inainte_de_bloc is not None:
                inainte_de_bloc()
            if pe_gpu:
                sincronizeaza()
            start = time.perf_counter()
            for _ in range(pasi_pe_runda):
                variante[nume]()
            if pe_gpu:
                sincronizeaza()
            durata = (time.perf_counter() - start) / pasi_pe_runda
            pe_runda[nume].append(float(combina(durata)) if combina is not None else durata)
    masuratori = {
        nume: Masuratoare(
            mediana_s=statistics.median(valori),
            cuantila20_s=_cuantila(valori, 0.2),
            cuantila80_s=_cuantila(valori, 0.8),
            numar_rulari=runde * pasi_pe_runda,
            unealta="ceasul de perete, număr fix de pași",
            eticheta=nume,
            mediane_runde=tuple(valori),
            ceas="perete",
            pe_gpu=pe_gpu,
        )
        for nume, valori in pe_runda.items()
    }
    return Comparatie(masuratori=masuratori, ceas="perete",
                      motiv_ceas="Ceasul de perete, cu un număr fix de pași (la fel în toate procesele).")


def masoara(
    functie: Callable,
    *argumente,
    timp_minim_s: float = 0.2,
    incalziri: int = 3,
    pe_gpu: bool | None = None,
    eticheta: str = "",
    ceas: str = "auto",
    runde: int = 5,
    pazeste_recompilari: bool = True,
) -> Masuratoare:
    """Măsoară o singură funcție, `functie(*argumente)`, cu aceeași disciplină ca `compara`
    (încălzire, ceasul potrivit, runde, mediană și împrăștiere, nicio recompilare în timpul
    cronometrării). Când compari variante, folosește `compara`: le măsoară intercalat, în runde."""
    nume = eticheta or "măsurătoare"
    comparatie = compara(
        {nume: functie},
        *argumente,
        runde=runde,
        timp_minim_s=timp_minim_s,
        incalziri=incalziri,
        pe_gpu=pe_gpu,
        ceas=ceas,
        pazeste_recompilari=pazeste_recompilari,
    )
    return dataclasses.replace(comparatie[nume], eticheta=eticheta)


def timp_prima_apelare(functie: Callable, *argumente, pe_gpu: bool | None = None) -> float:
    """Durata, în secunde, a unei singure apelări — de folosit pentru prima apelare, cea care
    compilează. Sincronizează GPU-ul înainte și după, ca să măsoare tot lucrul făcut."""
    if pe_gpu is None:
        pe_gpu = _pe_gpu(argumente)
    if pe_gpu:
        sincronizeaza()
    start = time.perf_counter()
    functie(*argumente)
    if pe_gpu:
        sincronizeaza()
    return time.perf_counter() - start


# ---------------------------------------------------------------------------------------------
# Numărarea kernel-urilor cu torch.profiler
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NumarKerneluri:
    """Câte kernel-uri a rulat o apelare, și care anume."""

    numar: int
    nume: Counter = field(default_factory=Counter)
    unde: str = "cpu"

    def __str__(self) -> str:
        detalii = ", ".join(f"{n} ×{c}" if c > 1 else n for n, c in self.nume.most_common())
        from .cifre import cu_substantiv

        return f"{cu_substantiv(self.numar, 'kernel', 'kernel-uri')} ({self.unde}): {detalii}"


def are_stramos_aten(eveniment) -> bool:
    """Adevărat când un eveniment al profilerului e chemat (direct sau nu) de o operație aten,
    adică nu e o operație „de nivel înalt”, pornită de codul Python."""
    parinte = eveniment.cpu_parent
    while parinte is not None:
        if parinte.name.startswith("aten::"):
            return True
        parinte = parinte.cpu_parent
    return False


def _nume_adnotari(evenimente) -> set[str]:
    """Numele marcajelor `record_function` de pe procesor (de exemplu „Optimizer.step#AdamW.step”).
    Profilerul le copiază și pe axa GPU-ului (*gpu_user_annotation*), ca intervale care cuprind
    kernel-urile lansate în ele: nu sunt lucru al GPU-ului și nu trebuie numărate a doua oară."""
    return {
        e.name for e in evenimente
        if e.device_type == torch.autograd.DeviceType.CPU and getattr(e, "is_user_annotation", False)
    }


def _e_lucru_gpu(eveniment, adnotari: set[str]) -> bool:
    """Adevărat pentru un eveniment pe care GPU-ul chiar l-a executat: un kernel, o copiere, o
    umplere de memorie. Marcajele copiate pe axa GPU-ului nu sunt lucru."""
    if eveniment.device_type != torch.autograd.DeviceType.CUDA:
        return False
    if getattr(eveniment, "is_user_annotation", False) or eveniment.name in adnotari:
        return False
    return "annotation" not in str(getattr(eveniment, "activity_type", "") or "")


def _evenimente_kernel(functie: Callable, argumente, pe_gpu: bool) -> list:
    """Rulează `functie(*argumente)` o dată (după un apel de încălzire) sub `torch.profiler`
    și întoarce evenimentele care înseamnă „un kernel”, în ordinea în care au început."""
    from torch.profiler import ProfilerActivity, profile

    functie(*argumente)
    if pe_gpu:
        sincronizeaza()
    activitati = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if pe_gpu else [])
    # acc_events=True: un singur ciclu de profilare, deci aceleași evenimente, dar fără
    # avertismentul „Profiler clears events at the end of each cycle” la a doua profilare.
    optiuni = {"acc_events": True} if "acc_events" in inspect.signature(profile.__init__).parameters else {}
    with profile(activities=activitati, **optiuni) as profil:
        functie(*argumente)
        if pe_gpu:
            sincronizeaza()
    alese = []
    evenimente = profil.events()
    adnotari = _nume_adnotari(evenimente) if pe_gpu else set()
    for eveniment in evenimente:
        if pe_gpu:
            if _e_lucru_gpu(eveniment, adnotari):
                alese.append(eveniment)
        elif "cpp_fused" in eveniment.name or (
            eveniment.name.startswith("aten::") and not are_stramos_aten(eveniment)
        ):
            alese.append(eveniment)
    return sorted(alese, key=lambda e: e.time_range.start)


def numara_kerneluri(functie: Callable, *argumente, pe_gpu: bool | None = None) -> NumarKerneluri:
    """Rulează `functie(*argumente)` o dată sub `torch.profiler` și numără kernel-urile.

    Pe GPU: kernel-urile (și copierile) pe care GPU-ul le-a executat efectiv. Pe CPU nu există
    „lansări”: numărăm operațiile aten de la nivelul de sus (eager) și kernel-urile C++ generate
    de Inductor (care apar în profil doar dacă funcția a fost compilată cu
    `torch._inductor.config.cpp.enable_kernel_profile = True`).
    Funcția e apelată o dată înainte, ca o eventuală compilare să nu intre în profil.
    """
    if pe_gpu is None:
        pe_gpu = _pe_gpu(argumente)
    nume = Counter(e.name for e in _evenimente_kernel(functie, argumente, pe_gpu))
    return NumarKerneluri(numar=sum(nume.values()), nume=nume, unde="gpu" if pe_gpu else "cpu")


_TIPARE_NUME_KERNEL = (
    re.compile(r"CUDAFunctorOnSelf_(\w+)"),  # x + 1: „add”
    re.compile(r"launch_(\w+?)_(?:kernel|scalar)"),  # relu ca clamp: „clamp”
    re.compile(r"(\w+?)Ops<"),  # reducerile: „Max”, „Sum”
    re.compile(r"::(\w+?)_kernel_cuda"),  # funcțiile matematice: „sin”, „exp”
    re.compile(r"(?<![\w])(?!AUnary|BUnary|CUDA)(\w+?)Functor"),  # înmulțirea: „Mul”
    re.compile(r"(\w+)\s*<"),  # altfel, numele funcției-șablon: „cunn_SoftMaxForward”
)


def nume_scurt_kernel(nume: str) -> str:
    """Un nume de kernel lizibil. Kernel-urile CUDA ale PyTorch au nume C++ lungi
    („void at::native::vectorized_elementwise_kernel<4, ...MulFunctor<float>...>”); din ele
    păstrăm operația („Mul”). Numele Triton și C++ generate de Inductor, precum și operațiile
    aten, rămân cum sunt."""
    if nume.startswith(("triton_", "cpp_fused", "aten::")) or len(nume) <= 40:
        return nume
    for tipar in _TIPARE_NUME_KERNEL:
        potrivire = tipar.search(nume)
        if potrivire:
            return potrivire.group(1)
    return nume[:37] + "..."


@dataclass(frozen=True)
class EvenimentKernel:
    """Un kernel din cronologie: numele scurt, începutul și durata, în microsecunde,
    măsurate de la începutul primului kernel."""

    nume: str
    inceput_us: float
    durata_us: float
    nume_complet: str = ""

    @property
    def sfarsit_us(self) -> float:
        return self.inceput_us + self.durata_us

    @classmethod
    def din_profiler(cls, eveniment, zero_us: float) -> "EvenimentKernel":
        """Un eveniment al lui `torch.profiler` (un kernel, o copiere), cu începutul măsurat de la
        `zero_us`."""
        return cls(
            nume=nume_scurt_kernel(eveniment.name),
            inceput_us=float(eveniment.time_range.start - zero_us),
            durata_us=float(eveniment.time_range.end - eveniment.time_range.start),
            nume_complet=eveniment.name,
        )


def cronologie_kerneluri(functie: Callable, *argumente, pe_gpu: bool | None = None) -> list[EvenimentKernel]:
    """Cronologia kernel-urilor unei apelări, din evenimentele `torch.profiler`: ce kernel a
    rulat, când a început și cât a durat. Golurile dintre kernel-uri sunt timp în care unitatea
    de calcul a așteptat următoarea lansare. Pe CPU se aplică aceeași regulă ca la
    `numara_kerneluri` pentru kernel-urile Inductor (`enable_kernel_profile`)."""
    if pe_gpu is None:
        pe_gpu = _pe_gpu(argumente)
    evenimente = _evenimente_kernel(functie, argumente, pe_gpu)
    if not evenimente:
        return []
    zero = evenimente[0].time_range.start
    return [EvenimentKernel.din_profiler(e, zero) for e in evenimente]


# ---------------------------------------------------------------------------------------------
# Cât lucrează GPU-ul într-o buclă: ocuparea și limitarea unui apel
# ---------------------------------------------------------------------------------------------


def lungime_reuniune(intervale: Iterable[tuple[float, float]]) -> float:
    """Lungimea reuniunii unor intervale (început, sfârșit): timpul acoperit de cel puțin unul.
    Două kernel-uri care rulează în același timp (pe fluxuri diferite) se numără o singură dată,
    iar golurile dintre intervale nu se numără deloc."""
    total, capat = 0.0, -math.inf
    for inceput, sfarsit in sorted((float(a), float(b)) for a, b in intervale if b > a):
        if sfarsit <= capat:
            continue
        total += sfarsit - max(inceput, capat)
        capat = sfarsit
    return total


def clasifica_limitarea(parte_ocupata: float) -> str:
    """Ce limitează un apel, după partea din timpul unei bucle în care lucrează GPU-ul: „gpu”
    (cel puțin `PRAG_LIMITAT_DE_GPU`), „procesor” (sub `PRAG_LIMITAT_DE_PROCESOR`: GPU-ul
    așteaptă mult) sau „echilibrat” (între ele). Cuvintele, în `LIMITARI`."""
    if parte_ocupata >= PRAG_LIMITAT_DE_GPU:
        return "gpu"
    if parte_ocupata < PRAG_LIMITAT_DE_PROCESOR:
        return "procesor"
    return "echilibrat"


@dataclass(frozen=True)
class OcupareGPU:
    """Cât a lucrat GPU-ul într-o buclă de apeluri consecutive, măsurat în aceleași ferestre:
    `lucru_s`, timpul în care cel puțin un kernel (sau o copiere) rula pe GPU, și `fereastra_s`,
    timpul buclei, de la începutul primului apel până la sfârșitul ultimului lucru. Ambele sunt
    sume peste ferestre; `parti` e partea ocupată în fiecare fereastră. Kernel-urile care se
    suprapun se numără o dată, deci partea nu poate trece de 100%.

    Profilerul însuși încetinește procesorul (înregistrează fiecare operație și fiecare lansare):
    într-o buclă limitată de procesor, fereastra de sub profiler e mai lungă decât bucla
    obișnuită. De aceea `ocupare_gpu` cronometrează și bucla fără profiler: `apeluri_fara_profiler_s`
    are, pentru fiecare fereastră, durata unui apel în regim, fără profiler. Când e dată, partea
    ocupată e lucrul GPU-ului pentru un apel (din urma profilerului, care măsoară corect timpii
    GPU-ului) împărțit la durata apelului fără profiler, cel mult 100%."""

    lucru_s: float
    fereastra_s: float
    pasi: int
    parti: tuple[float, ...]
    suma_kerneluri_s: float = 0.0
    #: Timpul de lucru al GPU-ului pentru ce au lansat apelurile numărate (fără umplere), adunat
    #: peste ferestre; None dacă urma nu spune cine ce a lansat.
    lucru_lansat_s: float | None = None
    kerneluri: tuple[EvenimentKernel, ...] = field(default=(), repr=False)
    #: Durata unui apel în regim, măsurată fără profiler, în fiecare fereastră (gol: nemăsurată).
    apeluri_fara_profiler_s: tuple[float, ...] = ()

    @property
    def ferestre(self) -> int:
        return len(self.parti)

    @property
    def parte_sub_profiler(self) -> float:
        """Partea ocupată a ferestrelor de sub profiler (lucrul și fereastra din aceeași urmă)."""
        return self.lucru_s / self.fereastra_s if self.fereastra_s > 0 else 0.0

    @property
    def apel_fara_profiler_s(self) -> float | None:
        """Mediana duratelor unui apel în regim, fără profiler (None: nemăsurată)."""
        return statistics.median(self.apeluri_fara_profiler_s) if self.apeluri_fara_profiler_s else None

    @property
    def parte(self) -> float:
        """Partea din timpul buclei în care GPU-ul a lucrat (0,95 = 95%): fără profiler, dacă
        bucla a fost cronometrată și așa, altfel cea de sub profiler."""
        if self.apel_fara_profiler_s:
            return min(1.0, self.lucru_pe_pas_s / self.apel_fara_profiler_s)
        return self.parte_sub_profiler

    @property
    def parti_ferestre(self) -> tuple[float, ...]:
        """Partea ocupată în fiecare fereastră (fără profiler, dacă s-a măsurat așa)."""
        if self.apeluri_fara_profiler_s:
            return tuple(min(1.0, self.lucru_pe_pas_s / a) if a > 0 else 0.0 for a in self.apeluri_fara_profiler_s)
        return self.parti

    @property
    def asteptare(self) -> float:
        """Partea din timpul buclei în care GPU-ul a așteptat."""
        return 1.0 - self.parte

    @property
    def limitare(self) -> str:
        """„gpu”, „procesor” sau „echilibrat” (`clasifica_limitarea`)."""
        return clasifica_limitarea(self.parte)

    @property
    def la_limita(self) -> bool:
        """Adevărat când ferestrele nu cad toate de aceeași parte a unui prag: zgomotul ar putea
        schimba cuvântul la o altă rulare."""
        return len({clasifica_limitarea(p) for p in self.parti_ferestre}) > 1

    @property
    def lucru_pe_pas_s(self) -> float:
        """Cât lucrează GPU-ul pentru un apel: lucrul lansat de apelurile numărate, împărțit la
        numărul lor (sau, fără lansări cunoscute, tot lucrul din ferestre)."""
        lucru = self.lucru_s if self.lucru_lansat_s is None else self.lucru_lansat_s
        return lucru / max(1, self.pasi * self.ferestre)

    @property
    def pe_pas_s(self) -> float:
        """Cât durează un apel într-o buclă: fără profiler, dacă s-a măsurat; altfel lucrul unui
        apel împărțit la partea ocupată de sub profiler (în regim, perioada buclei)."""
        if self.apel_fara_profiler_s:
            return self.apel_fara_profiler_s
        return self.pe_pas_sub_profiler_s

    @property
    def pe_pas_sub_profiler_s(self) -> float:
        """Cât durează un apel în bucla de sub profiler."""
        if self.parte_sub_profiler <= 0:
            return self.fereastra_s / max(1, self.pasi * self.ferestre)
        return self.lucru_pe_pas_s / self.parte_sub_profiler

    @property
    def kerneluri_pe_pas(self) -> float:
        """Câte kernel-uri (și copieri) lansează un apel, în medie."""
        return len(self.kerneluri) / max(1, self.pasi * self.ferestre)

    def timp_pe_nume(self, cate: int = 8, lungime: int = 48) -> dict[str, float]:
        """Timpul GPU al fiecărui kernel, adunat după nume, în milisecunde pe apel, pentru cele
        mai grele `cate` (numele lungi, scurtate la `lungime` caractere)."""
        total: Counter = Counter()
        for k in self.kerneluri:
            nume = k.nume if len(k.nume) <= lungime else k.nume[: lungime - 1] + "…"
            total[nume] += k.durata_us / 1e3
        apeluri = max(1, self.pasi * self.ferestre)
        return {nume: ms / apeluri for nume, ms in total.most_common(cate)}

    def text_scurt(self) -> str:
        """„GPU-ul lucrează 96% din timp” (cu intervalul ferestrelor când cuvântul e la limită)."""
        from .cifre import format_procent

        text = f"GPU-ul lucrează {format_procent(self.parte)} din timp"
        if self.la_limita:
            text += (f", între {format_procent(min(self.parti_ferestre))} și {format_procent(max(self.parti_ferestre))} "
                     "de la o fereastră la alta: la limita dintre două cuvinte")
        return text

    def __str__(self) -> str:
        from .cifre import cu_substantiv

        ferestre = (f"{cu_substantiv(self.pasi, 'apel', 'apeluri')} consecutive, "
                    f"{cu_substantiv(self.ferestre, 'fereastră', 'ferestre')}")
        if self.apel_fara_profiler_s:
            sub = self.pe_pas_sub_profiler_s
            ferestre += ", apelul cronometrat fără profiler"
            if sub > PRAG_INCETINIRE_PROFILER * self.apel_fara_profiler_s:
                ferestre += (f"; sub profiler a durat {format_timp(sub)}: profilerul încetinește procesorul, "
                             f"deci și bucla, când GPU-ul îl așteaptă")
        return (
            f"{self.text_scurt()}: {format_timp(self.lucru_pe_pas_s)} de lucru pe GPU într-un apel de "
            f"{format_timp(self.pe_pas_s)} ({ferestre}) → {LIMITARI[self.limitare]}"
        )


def ocupare_din_ferestre(
    ferestre: Sequence[tuple[float, float, Sequence[tuple[float, float]]]],
    pasi: int,
    kerneluri: Sequence[EvenimentKernel] = (),
    lansate: Sequence[Sequence[tuple[float, float]]] | None = None,
) -> OcupareGPU:
    """Ocuparea din urma unor ferestre de măsurare. Fiecare fereastră e (început, sfârșit,
    intervale): începutul primului apel și sfârșitul ultimului, pe procesor (înainte de
    sincronizare), și intervalele (început, sfârșit) în care a lucrat GPU-ul, toate pe același
    ceas. Fereastra ține până la sfârșitul ultimului lucru al GPU-ului, dacă acesta vine după
    procesor; ce a lucrat GPU-ul înainte de începutul ferestrei se taie. `lansate` (câte o listă
    pe fereastră, opțional): intervalele lucrului lansat chiar de apelurile numărate."""
    lucru, durata, parti, suma = 0.0, 0.0, [], 0.0
    for inceput, sfarsit, intervale in ferestre:
        taiate = [(max(a, inceput), b) for a, b in intervale if b > inceput]
        capat = max([sfarsit] + [b for _, b in taiate])
        ocupat = lungime_reuniune(taiate)
        lucru += ocupat
        durata += capat - inceput
        suma += sum(b - a for a, b in taiate)
        parti.append(ocupat / (capat - inceput) if capat > inceput else 0.0)
    lucru_lansat = None if lansate is None else sum(lungime_reuniune(l) for l in lansate)
    return OcupareGPU(lucru, durata, pasi, tuple(parti), suma, lucru_lansat, tuple(kerneluri))


#: Câte ferestre de măsurare folosește `ocupare_gpu` și cât durează, cel puțin, fiecare.
FERESTRE_OCUPARE = 3
DURATA_FEREASTRA_S = 0.05

#: De la cât (de câte ori mai lung) spune `OcupareGPU` că apelul de sub profiler a durat mai mult
#: decât cel fără profiler.
PRAG_INCETINIRE_PROFILER = 1.1


def durata_apel_in_bucla(
    functie: Callable, *argumente, pasi: int, ferestre: int = FERESTRE_OCUPARE,
    sincronizare: Callable[[], None] | None = None,
) -> tuple[float, ...]:
    """Cât durează un apel al lui `functie(*argumente)` chemată în buclă, fără profiler, în regim:
    pentru fiecare fereastră, o buclă de `pasi` apeluri și una de `2 · pasi`, fiecare după un apel
    de umplere și cu o sincronizare la capăt. Diferența duratelor, împărțită la `pasi`, e durata
    unui apel: ce au în comun cele două bucle (lucrul rămas de la umplere, sincronizarea) se
    scade. Într-o buclă limitată de GPU, e timpul de lucru al GPU-ului pentru un apel; într-una
    limitată de procesor, timpul de procesor al unui apel."""
    sincronizare = sincronizare or sincronizeaza
    durate = []
    for _ in range(ferestre):
        bucle = []
        for n in (pasi, 2 * pasi):
            functie(*argumente)  # umplerea: coada GPU-ului e deja plină, dacă e limitat de GPU
            start = time.perf_counter()
            for _ in range(n):
                functie(*argumente)
            sincronizare()
            bucle.append(time.perf_counter() - start)
        scurta, lunga = bucle
        durata = (lunga - scurta) / pasi
        durate.append(durata if durata > 0 else lunga / (2 * pasi))  # zgomotul a inversat buclele
    return tuple(durate)


def _pasi_pe_fereastra(estimare_s: float | None) -> int:
    if not estimare_s or estimare_s <= 0:
        return 5
    return max(3, min(20, round(DURATA_FEREASTRA_S / estimare_s)))


def _lansari_pe_corelare(evenimente, lucru_gpu) -> dict[int, float]:
    """Pentru fiecare lucru al GPU-ului, momentul (pe procesor) în care a fost lansat: apelul
    runtime-ului CUDA (`cudaLaunchKernel`, `cudaMemcpyAsync`, `cudaGraphLaunch`…) are același
    număr de corelare ca lucrul pe care l-a pornit. Gol, dacă profilerul nu dă corelările."""
    ale_gpu = {e.id for e in lucru_gpu if getattr(e, "id", 0)}
    return {
        e.id: e.time_range.start for e in evenimente
        if e.device_type == torch.autograd.DeviceType.CPU and getattr(e, "id", 0) in ale_gpu
        and e.name.startswith(("cuda", "cu"))
    }


def ocupare_din_evenimente(evenimente, marcaje: Sequence[tuple[str, str]], pasi: int) -> OcupareGPU | None:
    """Ocuparea din evenimentele unei rulări sub `torch.profiler` (`profil.events()`), cu
    ferestrele marcate de `ocupare_gpu`: pentru fiecare fereastră, perechea de nume (umplerea,
    fereastra) a marcajelor `record_function` de pe procesor. Lucrul GPU-ului dintr-o fereastră e
    tot ce a rulat pe GPU după începutul ei și înainte de umplerea ferestrei următoare (între ele,
    o sincronizare); kernel-urile ferestrei sunt cele lansate (după corelarea cu apelul
    runtime-ului CUDA) de apelurile numărate. None, dacă lipsește vreun marcaj."""
    nume_marcaje = {m for pereche in marcaje for m in pereche}
    margini = {e.name: (e.time_range.start, e.time_range.end) for e in evenimente
               if e.name in nume_marcaje and e.device_type == torch.autograd.DeviceType.CPU}
    if len(margini) != len(nume_marcaje):
        return None
    adnotari = _nume_adnotari(evenimente)
    lucru_gpu = sorted((e for e in evenimente if _e_lucru_gpu(e, adnotari)), key=lambda e: e.time_range.start)
    lansari = _lansari_pe_corelare(evenimente, lucru_gpu)
    # fereastra i se termină, pe GPU, înainte de umplerea ferestrei următoare (între ele, o sincronizare)
    limite = [margini[u][0] for u, _ in marcaje[1:]] + [math.inf]
    urma, lansate, kerneluri = [], [], []
    for (_, fereastra), limita in zip(marcaje, limite):
        inceput, sfarsit = margini[fereastra]
        ale_ferestrei = [e for e in lucru_gpu if e.time_range.end > inceput and e.time_range.start < limita]
        urma.append((inceput / 1e6, sfarsit / 1e6,
                     [(e.time_range.start / 1e6, e.time_range.end / 1e6) for e in ale_ferestrei]))
        if lansari:
            numarate = [e for e in ale_ferestrei if inceput <= lansari.get(e.id, -math.inf) <= sfarsit]
        else:
            numarate = [e for e in ale_ferestrei if e.time_range.start >= inceput]
        lansate.append([(e.time_range.start / 1e6, e.time_range.end / 1e6) for e in numarate])
        kerneluri += [EvenimentKernel.din_profiler(e, inceput) for e in numarate]
    return ocupare_din_ferestre(urma, pasi, kerneluri, lansate)


def ocupare_gpu(
    functie: Callable,
    *argumente,
    pasi: int | None = None,
    ferestre: int = FERESTRE_OCUPARE,
    estimare_s: float | None = None,
) -> OcupareGPU | None:
    """Cât lucrează GPU-ul când `functie(*argumente)` e chemată în buclă, ca într-un program.

    Sub `torch.profiler`, `ferestre` ferestre, fiecare cu un apel de umplere (ca bucla să fie
    deja în regim, cu GPU-ul ocupat, dacă e limitat de GPU) și apoi `pasi` apeluri consecutive,
    sincronizate doar la capăt. Timpul în care a lucrat GPU-ul (reuniunea intervalelor
    kernel-urilor și copierilor, fără marcajele `record_function`) și durata ferestrei (de la
    începutul primului apel numărat până la sfârșitul ultimului lucru) vin din aceeași urmă
    (`parte_sub_profiler`). Apoi aceeași buclă e cronometrată fără profiler
    (`durata_apel_in_bucla`), fiindcă profilerul încetinește procesorul: partea ocupată (`parte`)
    e lucrul GPU-ului pentru un apel împărțit la durata apelului fără profiler, cel mult 100%.
    `pasi` implicit: cât să țină o fereastră vreo
    50 ms (între 3 și 20 de apeluri), după `estimare_s`, durata unui apel. `kerneluri` sunt
    cele lansate de apelurile numărate.

    Întoarce None pe o mașină fără GPU sau dacă profilerul nu poate rula (de exemplu, e deja
    pornit în jurul apelului)."""
    if not torch.cuda.is_available():
        return None
    from torch.profiler import ProfilerActivity, profile, record_function

    if estimare_s is None:
        sincronizeaza()
        start = time.perf_counter()
        functie(*argumente)
        sincronizeaza()
        estimare_s = time.perf_counter() - start
    pasi = pasi or _pasi_pe_fereastra(estimare_s)
    marcaje = [(f"curs_compilare::umplere_{i}", f"curs_compilare::fereastra_{i}") for i in range(ferestre)]
    optiuni = {"acc_events": True} if "acc_events" in inspect.signature(profile.__init__).parameters else {}
    profil = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA], **optiuni)
    try:
        profil.start()
    except RuntimeError:  # de exemplu, un alt profiler e deja pornit
        return None
    try:  # o eroare a funcției (o recompilare, de pildă) ajunge la cel care măsoară
        functie(*argumente)  # încălzirea profilerului: în afara ferestrelor
        sincronizeaza()
        for umplere, fereastra in marcaje:
            with record_function(umplere):
                functie(*argumente)
            with record_function(fereastra):
                for _ in range(pasi):
                    functie(*argumente)
            sincronizeaza()
    finally:
        profil.stop()
    ocupare = ocupare_din_evenimente(profil.events(), marcaje, pasi)
    if ocupare is None:  # urma n-are ferestrele (profilerul n-a putut urmări GPU-ul)
        return None
    # profilerul încetinește procesorul: durata apelului, și fără el
    return replace(ocupare, apeluri_fara_profiler_s=durata_apel_in_bucla(functie, *argumente, pasi=pasi, ferestre=ferestre))


def ocupare_gpu_simulat(gpu: "GPUSimulat", pasi: int = 10, ferestre: int = FERESTRE_OCUPARE,
                        cost_profiler_s: float | None = None) -> OcupareGPU:
    """Aceeași măsurare ca `ocupare_gpu`, pe GPU-ul de jucărie (`GPUSimulat`): în fiecare
    fereastră, o lansare de umplere, apoi `pasi` lansări numărate, cu sincronizare între
    ferestre; urma e cea pe care o ține `gpu.urma`. Arată, pe orice mașină, cum depinde cuvântul
    (limitat de GPU, de procesor, echilibrat) de raportul dintre lansare și lucru.

    Cu `cost_profiler_s` (secunde), imită și profilerul, care încetinește procesorul: fiecare
    lansare din ferestre costă atât în plus, iar apoi bucla e cronometrată și fără el
    (`durata_apel_in_bucla`), ca în `ocupare_gpu`."""
    lansare = gpu.durata_lansare_s
    gpu.lanseaza()  # prima lansare „compilează”: în afara ferestrelor
    gpu.sincronizeaza()
    urma, lansate = [], []
    try:
        gpu.durata_lansare_s = lansare + (cost_profiler_s or 0.0)
        for _ in range(ferestre):
            gpu.urma.clear()
            gpu.lanseaza()  # umplerea
            inceput = time.perf_counter()
            for _ in range(pasi):
                gpu.lanseaza()
            sfarsit = time.perf_counter()
            gpu.sincronizeaza()
            urma.append((inceput, sfarsit, list(gpu.urma)))
            lansate.append(list(gpu.urma[1:]))  # fără lucrarea umplerii
    finally:
        gpu.durata_lansare_s = lansare
    ocupare = ocupare_din_ferestre(urma, pasi, lansate=lansate)
    if cost_profiler_s is None:
        return ocupare
    return replace(ocupare, apeluri_fara_profiler_s=durata_apel_in_bucla(
        gpu.lanseaza, pasi=pasi, ferestre=ferestre, sincronizare=gpu.sincronizeaza))

# ---------------------------------------------------------------------------------------------
# Debit: GB/s și TFLOP/s
# ---------------------------------------------------------------------------------------------


def gbps(octeti: float, secunde: float) -> float:
    """Lățimea de bandă în GB/s (1 GB = 10⁹ octeți, ca în fișele tehnice ale GPU-urilor)."""
    return octeti / secunde / 1e9


def tflops(operatii: float, secunde: float) -> float:
    """Debitul de calcul în TFLOP/s (10¹² operații în virgulă mobilă pe secundă)."""
    return operatii / secunde / 1e12


def debit(cantitate: float, masuratoare: Masuratoare, scara: float = 1e9) -> tuple[float, float, float]:
    """Debitul `cantitate / timp / scara` (cu scara 10⁹ și octeți: GB/s; cu 10¹² și operații:
    TFLOP/s), ca triplet (mediana, jos, sus): „jos” din cuantila de 80% a timpului, „sus” din
    cea de 20% — împrăștierea măsurătorii, gata de desenat."""
    return (
        cantitate / masuratoare.mediana_s / scara,
        cantitate / masuratoare.cuantila80_s / scara,
        cantitate / masuratoare.cuantila20_s / scara,
    )


@dataclass(frozen=True)
class PlafonCopiere:
    """Lățimea de bandă a unei copieri simple (`y.copy_(x)`): acoperișul operațiilor
    limitate de memorie pe mașina ta. Numără octeții citiți și pe cei scriși."""

    gbps: float
    octeti_copiati: int
    masuratoare: Masuratoare
    dispozitiv: str

    def __str__(self) -> str:
        from .cifre import format_numar, format_octeti

        return (
            f"Plafonul de copiere ({self.dispozitiv}): {format_numar(self.gbps, 0)} GB/s "
            f"(y.copy_(x) pe {format_octeti(self.octeti_copiati)}, citire + scriere; "
            f"mediana {format_timp(self.masuratoare.mediana_s)})"
        )


def masoara_plafon_copiere(numar_octeti: int | None = None, dispozitiv=None) -> PlafonCopiere:
    """Măsoară lățimea de bandă a unei copieri `y.copy_(x)` între doi tensori deja alocați,
    mult mai mari decât cache-urile. (Pe GPU e același lucru cu `x.clone()`; pe CPU, `clone`
    ar măsura și alocarea memoriei noi.)

    Implicit: 1 GiB pe GPU, 256 MiB pe CPU, 16 MiB în profilul rapid. Copia citește și scrie
    fiecare octet o dată, deci socotim 2 × dimensiunea tensorului.
    """
    if dispozitiv is None:
        dispozitiv = "cuda" if torch.cuda.is_available() else "cpu"
    dispozitiv = torch.device(dispozitiv)
    if numar_octeti is None:
        numar_octeti = dimensiune(gpu=2**30, cpu=2**28, rapid=2**24)
    x = torch.empty(numar_octeti // 4, dtype=torch.float32, device=dispozitiv).uniform_()
    y = torch.empty_like(x)
    masuratoare = masoara(y.copy_, x, eticheta="y.copy_(x)")
    octeti_mutati = 2 * x.numel() * x.element_size()
    return PlafonCopiere(
        gbps=gbps(octeti_mutati, masuratoare.mediana_s),
        octeti_copiati=x.numel() * x.element_size(),
        masuratoare=masuratoare,
        dispozitiv=str(dispozitiv),
    )


# ---------------------------------------------------------------------------------------------
# Amortizarea compilării
# ---------------------------------------------------------------------------------------------


def prag_rentabilitate(timp_prima_s: float, timp_eager_s: float, timp_compilat_s: float):
    """Apelul n (n ≥ 1) de la care varianta compilată a costat în total cel mult cât eager:
    timp_prima + (n − 1) · timp_compilat ≤ n · timp_eager, de acolo încolo.

    `timp_prima_s` este primul apel compilat (compilarea plus o rulare). Întoarce None dacă
    varianta compilată nu ajunge niciodată din urmă varianta eager. Modelul e cel din
    `curs_compilare.amortizare`, comun tuturor capitolelor.
    """
    return apel_de_amortizare(timp_eager_s, timp_eager_s, timp_prima_s, timp_compilat_s)


# ---------------------------------------------------------------------------------------------
# Un GPU de jucărie, ca să vezi asincronia și pe o mașină fără GPU
# ---------------------------------------------------------------------------------------------


class GPUSimulat:
    """Imită, pe CPU, felul în care lucrează un GPU real.

    - `lanseaza()` pune o lucrare în coada „GPU-ului” și se întoarce aproape imediat (cât
      costă lansarea), ca un kernel CUDA: lucrarea „rulează” în fundal;
    - `sincronizeaza()` așteaptă până când coada se golește, ca `torch.cuda.synchronize()`;
    - prima apelare a lui `lanseaza()` „compilează” mai întâi, ca un `torch.compile`;
    - `urma` ține intervalele în care „GPU-ul” a lucrat, ca urma unui profiler
      (`ocupare_gpu_simulat` o citește).
    """

    def __init__(
        self,
        durata_lucrare_s: float = 0.004,
        durata_lansare_s: float = 0.0001,
        durata_compilare_s: float = 0.15,
    ):
        self.durata_lucrare_s = durata_lucrare_s
        self.durata_lansare_s = durata_lansare_s
        self.durata_compilare_s = durata_compilare_s
        self._liber_la = time.perf_counter()
        self.lansari = 0
        self.sincronizari = 0
        #: Urma „GPU-ului”: (început, sfârșit) pentru fiecare lucrare, pe ceasul `time.perf_counter`.
        self.urma: list[tuple[float, float]] = []

    def lanseaza(self) -> None:
        """Lansează o lucrare și se întoarce fără să aștepte terminarea ei."""
        if self.lansari == 0:
            time.sleep(self.durata_compilare_s)
        time.sleep(self.durata_lansare_s)
        acum = time.perf_counter()
        inceput = max(acum, self._liber_la)
        self._liber_la = inceput + self.durata_lucrare_s
        self.urma.append((inceput, self._liber_la))
        self.lansari += 1

    def sincronizeaza(self) -> None:
        """Blochează până când „GPU-ul” a terminat tot ce i s-a cerut."""
        self.sincronizari += 1
        ramas = self._liber_la - time.perf_counter()
        if ramas > 0:
            time.sleep(ramas)
