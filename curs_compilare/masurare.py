"""Măsurători corecte: încălzire, sincronizare, mediană, prima apelare separat.

Nu cronometrăm de mână. Pe GPU folosim `triton.testing.do_bench` (evenimente CUDA, cache-ul
L2 golit înaintea fiecărei rulări), pe CPU `torch.utils.benchmark.Timer`. Aici sunt și
conversiile din octeți și operații în GB/s și TFLOP/s, numărarea kernel-urilor cu
`torch.profiler` și plafonul de copiere al mașinii, pe care capitolele îl folosesc drept
„acoperiș”.
"""

from __future__ import annotations

import dataclasses
import math
import re
import statistics
import time
from collections import Counter
from dataclasses import dataclass, field
from typing import Callable, Iterable, Sequence

import torch

from .mediu import dimensiune, sincronizeaza

__all__ = [
    "Masuratoare",
    "masoara",
    "timp_prima_apelare",
    "NumarKerneluri",
    "numara_kerneluri",
    "nume_scurt_kernel",
    "EvenimentKernel",
    "cronologie_kerneluri",
    "gbps",
    "tflops",
    "PlafonCopiere",
    "masoara_plafon_copiere",
    "prag_rentabilitate",
    "GPUSimulat",
]


# ---------------------------------------------------------------------------------------------
# Rezultatul unei măsurători
# ---------------------------------------------------------------------------------------------


def _format_timp(secunde: float) -> str:
    """Un timp în unitatea potrivită, cu virgulă zecimală: „1,23 ms”."""
    if secunde >= 1:
        valoare, unitate = secunde, "s"
    elif secunde >= 1e-3:
        valoare, unitate = secunde * 1e3, "ms"
    else:
        valoare, unitate = secunde * 1e6, "µs"
    return f"{valoare:.3g} {unitate}".replace(".", ",")


@dataclass(frozen=True)
class Masuratoare:
    """Timpii unei funcții, după încălzire: mediana și împrăștierea (cuantilele 20% și 80%)."""

    mediana_s: float
    cuantila20_s: float
    cuantila80_s: float
    numar_rulari: int
    unealta: str
    eticheta: str = ""

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

    def __str__(self) -> str:
        text = (
            f"{_format_timp(self.mediana_s)} (mediana a {self.numar_rulari} rulări; "
            f"20–80%: {_format_timp(self.cuantila20_s)} – {_format_timp(self.cuantila80_s)}; "
            f"{self.unealta})"
        )
        return f"{self.eticheta}: {text}" if self.eticheta else text


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


def _din_timpi(timpi_s: Sequence[float], unealta: str, eticheta: str) -> Masuratoare:
    return Masuratoare(
        mediana_s=statistics.median(timpi_s),
        cuantila20_s=_cuantila(timpi_s, 0.2),
        cuantila80_s=_cuantila(timpi_s, 0.8),
        numar_rulari=len(timpi_s),
        unealta=unealta,
        eticheta=eticheta,
    )


def masoara(
    functie: Callable,
    *argumente,
    timp_minim_s: float = 0.2,
    incalziri: int = 3,
    pe_gpu: bool | None = None,
    eticheta: str = "",
    ceas_de_perete: bool = False,
) -> Masuratoare:
    """Măsoară `functie(*argumente)` corect și întoarce mediana și împrăștierea.

    - întâi câteva apelări de încălzire (prima apelare a unei funcții compilate o compilează:
      pe aceea o măsori separat, cu `timp_prima_apelare`);
    - pe GPU: `triton.testing.do_bench`, care cronometrează cu evenimente CUDA și golește
      cache-ul L2 înaintea fiecărei rulări; fără triton, `torch.utils.benchmark.Timer`;
    - pe CPU: `torch.utils.benchmark.Timer.blocked_autorange`, cu toate firele de execuție.

    `timp_minim_s` este cât timp, cel puțin, se repetă funcția pentru statistică.

    `ceas_de_perete=True` măsoară și pe GPU cu `torch.utils.benchmark.Timer` (care
    sincronizează GPU-ul): timpul pe apel într-o buclă, așa cum îl simte programul, cu tot cu
    munca procesorului care lansează kernel-urile. Pentru modelele limitate de costul lansării
    (capitolul 04) asta e măsura potrivită: `do_bench` golește cache-ul L2 cu un kernel înaintea
    fiecărei rulări, iar cât timp GPU-ul lucrează la golire, procesorul apucă să lanseze o parte
    din kernel-uri „pe gratis”.
    """
    if pe_gpu is None:
        pe_gpu = _pe_gpu(argumente)

    def apel():
        return functie(*argumente)

    start = time.perf_counter()
    for _ in range(max(1, incalziri)):
        apel()
    if pe_gpu:
        sincronizeaza()
    estimare_s = (time.perf_counter() - start) / max(1, incalziri)

    if pe_gpu and not ceas_de_perete:
        try:
            from triton.testing import do_bench
        except Exception:
            do_bench = None
        if do_bench is not None:
            repetare_ms = max(1, int(timp_minim_s * 1000))
            try:
                timpi_ms = do_bench(apel, warmup=25, rep=repetare_ms, return_mode="all")
            except (AssertionError, TypeError):  # triton vechi, fără return_mode="all"
                timpi_ms = do_bench(apel, warmup=25, rep=repetare_ms, quantiles=[0.2, 0.5, 0.8])
            return _din_timpi([t / 1e3 for t in timpi_ms], "triton.testing.do_bench", eticheta)

    from torch.utils import benchmark

    cronometru = benchmark.Timer(
        stmt="apel()",
        globals={"apel": apel},
        num_threads=torch.get_num_threads(),
        label=eticheta or "măsurătoare",
    )
    # cel puțin ~10 rulări și pentru funcțiile lente, dar nu mai mult de câteva secunde
    durata_s = max(timp_minim_s, min(10 * estimare_s, 5.0))
    rezultat = cronometru.blocked_autorange(min_run_time=durata_s)
    # fiecare valoare din `times` e media unui bloc de `number_per_run` rulări
    rulari = len(rezultat.times) * rezultat.number_per_run
    if rulari < 10 and durata_s < 5.0:  # estimarea din încălzire a fost prea optimistă
        rezultat = cronometru.blocked_autorange(min_run_time=min(durata_s * 12 / max(rulari, 1), 10.0))
        rulari = len(rezultat.times) * rezultat.number_per_run
    masuratoare = _din_timpi(list(rezultat.times), "torch.utils.benchmark", eticheta)
    return dataclasses.replace(masuratoare, numar_rulari=rulari)


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
        substantiv = "kernel" if self.numar == 1 else "kernel-uri"
        return f"{self.numar} {substantiv} ({self.unde}): {detalii}"


def _are_stramos_aten(eveniment) -> bool:
    parinte = eveniment.cpu_parent
    while parinte is not None:
        if parinte.name.startswith("aten::"):
            return True
        parinte = parinte.cpu_parent
    return False


def _evenimente_kernel(functie: Callable, argumente, pe_gpu: bool) -> list:
    """Rulează `functie(*argumente)` o dată (după o apelare de încălzire) sub `torch.profiler`
    și întoarce evenimentele care înseamnă „un kernel”, în ordinea în care au început."""
    from torch.profiler import ProfilerActivity, profile

    functie(*argumente)
    if pe_gpu:
        sincronizeaza()
    activitati = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if pe_gpu else [])
    with profile(activities=activitati) as profil:
        functie(*argumente)
        if pe_gpu:
            sincronizeaza()
    alese = []
    for eveniment in profil.events():
        if pe_gpu:
            if eveniment.device_type == torch.autograd.DeviceType.CUDA:
                alese.append(eveniment)
        elif "cpp_fused" in eveniment.name or (
            eveniment.name.startswith("aten::") and not _are_stramos_aten(eveniment)
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
    return [
        EvenimentKernel(
            nume=nume_scurt_kernel(e.name),
            inceput_us=float(e.time_range.start - zero),
            durata_us=float(e.time_range.end - e.time_range.start),
            nume_complet=e.name,
        )
        for e in evenimente
    ]


# ---------------------------------------------------------------------------------------------
# Debit: GB/s și TFLOP/s
# ---------------------------------------------------------------------------------------------


def gbps(octeti: float, secunde: float) -> float:
    """Lățimea de bandă în GB/s (1 GB = 10⁹ octeți, ca în fișele tehnice ale GPU-urilor)."""
    return octeti / secunde / 1e9


def tflops(operatii: float, secunde: float) -> float:
    """Debitul de calcul în TFLOP/s (10¹² operații în virgulă mobilă pe secundă)."""
    return operatii / secunde / 1e12


@dataclass(frozen=True)
class PlafonCopiere:
    """Lățimea de bandă a unei copieri simple (`y.copy_(x)`): acoperișul operațiilor
    limitate de memorie pe mașina ta. Numără octeții citiți și pe cei scriși."""

    gbps: float
    octeti_copiati: int
    masuratoare: Masuratoare
    dispozitiv: str

    def __str__(self) -> str:
        valoare = f"{self.gbps:,.0f}".replace(",", " ")
        return (
            f"Plafonul de copiere ({self.dispozitiv}): {valoare} GB/s "
            f"(y.copy_(x) pe {self.octeti_copiati / 2**20:.0f} MiB, citire + scriere; "
            f"{_format_timp(self.masuratoare.mediana_s)} mediana)"
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
    """Cea mai mică apelare n (n ≥ 1) după care varianta compilată a costat în total cel mult
    cât eager: timp_prima + (n − 1) · timp_compilat ≤ n · timp_eager.

    `timp_prima_s` este prima apelare compilată (compilarea plus o rulare). Întoarce None dacă
    varianta compilată nu ajunge niciodată din urmă varianta eager.
    """
    if timp_prima_s <= timp_eager_s:
        return 1
    castig_pe_apelare = timp_eager_s - timp_compilat_s
    if castig_pe_apelare <= 0:
        return None
    n = max(1, math.ceil((timp_prima_s - timp_compilat_s) / castig_pe_apelare))
    # protecție față de rotunjirile în virgulă mobilă la granița exactă
    while n > 1 and timp_prima_s + (n - 2) * timp_compilat_s <= (n - 1) * timp_eager_s:
        n -= 1
    while timp_prima_s + (n - 1) * timp_compilat_s > n * timp_eager_s:
        n += 1
    return n


# ---------------------------------------------------------------------------------------------
# Un GPU de jucărie, ca să vezi asincronia și pe o mașină fără GPU
# ---------------------------------------------------------------------------------------------


class GPUSimulat:
    """Imită, pe CPU, felul în care lucrează un GPU real.

    - `lanseaza()` pune o lucrare în coada „GPU-ului” și se întoarce aproape imediat (cât
      costă lansarea), ca un kernel CUDA: lucrarea „rulează” în fundal;
    - `sincronizeaza()` așteaptă până când coada se golește, ca `torch.cuda.synchronize()`;
    - prima apelare a lui `lanseaza()` „compilează” mai întâi, ca un `torch.compile`.
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

    def lanseaza(self) -> None:
        """Lansează o lucrare și se întoarce fără să aștepte terminarea ei."""
        if self.lansari == 0:
            time.sleep(self.durata_compilare_s)
        time.sleep(self.durata_lansare_s)
        acum = time.perf_counter()
        self._liber_la = max(acum, self._liber_la) + self.durata_lucrare_s
        self.lansari += 1

    def sincronizeaza(self) -> None:
        """Blochează până când „GPU-ul” a terminat tot ce i s-a cerut."""
        self.sincronizari += 1
        ramas = self._liber_la - time.perf_counter()
        if ramas > 0:
            time.sleep(ramas)
