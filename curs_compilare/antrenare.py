"""Modelul întreg, antrenat și servit compilat (capitolul 06 și `benchmarks/capitolul06.py`).

- **Date învățabile** (`DateCiclu`): secvențe care urmează un ciclu ascuns prin tot vocabularul
  (după jetonul `a` vine mereu același jeton); un model care învață regula coboară pierderea de
  la ln(vocabular) spre zero; în câteva sute de pași ajunge mult sub ln(vocabular). Cu jetoane
  pur aleatoare n-ar avea ce învăța.
- **Antrenarea scurtă** (`antreneaza`): pierderea compilată (sau eager), pasul optimizatorului
  compilat, cu rata de învățare ținută într-un tensor (`optimizare_cu_rata_tensor`), ca un
  program al ratei să nu recompileze; precizia mașinii (bfloat16, float16 cu `GradScaler`,
  float32).
- **`model.compile()` față de `torch.compile(model)`**: cheile din `state_dict`
  (`chei_fara_prefix` scoate prefixul `_orig_mod.`).
- **Modurile, unul lângă altul** (`compara_moduri`): timpul pe pas (intercalat, `compara`),
  primul apel (`timp_compilare`, cache gol), vârful de memorie și pasul de la care modul s-a
  amortizat față de eager (`amortizare.apel_de_amortizare`).
- **Compilarea regională** (`compilare_regionala`): fiecare `BlocTransformer` compilat (același
  graf, refolosit de toate straturile) față de modelul întreg, la rece și la cald.
- **Generarea cu lotul 1** (`genereaza`): la fiecare jeton, modelul rulează pe toată secvența de
  până atunci (fără cache KV), pe lungimea exactă sau completată la dreapta până la o
  „găleată” (`marime_galeata`); `numara_grafuri` spune câte grafuri a compilat Dynamo.
"""

from __future__ import annotations

import contextlib
import copy
import math
import time
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import torch
import torch.nn.functional as F
from torch import nn

from .amortizare import apel_de_amortizare, cost_total
from .masurare import Comparatie, compara, timp_prima_apelare
from .masurare_compilare import cache_gol, incalzeste_compilatorul, invelis_nou, timp_compilare
from .mediu import dimensiune, sincronizeaza
from .modele import ConfiguratieTransformer, ReteaTransformer, configuratie_pentru_mediu, cu_precizie

__all__ = [
    "MODURI",
    "PREFIX_COMPILAT",
    "configuratie_capitol",
    "configuratie_regionala",
    "DateCiclu",
    "optimizare_cu_rata_tensor",
    "Rulare",
    "antreneaza",
    "medii_pe_ferestre",
    "chei_fara_prefix",
    "moduri_pentru_mediu",
    "functie_pentru_mod",
    "constructor_pas_antrenare",
    "ComparatieModuri",
    "compara_moduri",
    "varf_memorie_mib",
    "numara_grafuri",
    "CompilareRegionala",
    "compilare_regionala",
    "marime_galeata",
    "genereaza",
]

#: Modurile lui `torch.compile` comparate în capitol, plus eager.
MODURI = ("eager", "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")

#: Prefixul pe care `torch.compile(model)` îl pune cheilor din `state_dict`.
PREFIX_COMPILAT = "_orig_mod."


def configuratie_capitol() -> ConfiguratieTransformer:
    """Configurația capitolului: cea a cursului (`configuratie_pentru_mediu`): pe un GPU,
    4 straturi de lățime 512, vocabularul 50 304, 16 secvențe de 1 024 de jetoane."""
    return configuratie_pentru_mediu()


def configuratie_regionala() -> ConfiguratieTransformer:
    """Un model mai adânc, pentru compilarea regională: multe straturi identice (aici se vede
    câștigul: blocul se compilează o dată, oricâte straturi ar fi).

    Pe un GPU, straturile sunt și late (2 048), iar lotul mare, ca pasul să fie limitat de GPU:
    fiecare regiune compilată își plătește pe procesor gărzile și învelișul (la trecerea înainte
    și la cea înapoi), iar pe un pas limitat de procesor costul acesta s-ar vedea în timpul pe
    pas. Pe un H200, cu straturi de 256 și lotul 8 × 512, pasul regional a ieșit cu 43% mai lung
    decât al modelului compilat întreg. Pe un GPU cu mai puțin de 40 GiB (un T4), straturile au
    1 024 și lotul 4 secvențe: trei copii ale modelului, cu gradienții lor, trebuie să încapă."""
    lot_gpu, latime_gpu = 16, 2048
    if torch.cuda.is_available() and torch.cuda.get_device_properties(0).total_memory < 40 * 2**30:
        lot_gpu, latime_gpu = 4, 1024
    return ConfiguratieTransformer(
        vocabular=dimensiune(gpu=8192, cpu=512, rapid=256),
        dim_model=dimensiune(gpu=latime_gpu, cpu=64, rapid=32),
        nr_capete=dimensiune(gpu=latime_gpu // 128, cpu=2, rapid=2),
        nr_straturi=dimensiune(gpu=12, cpu=6, rapid=4),
        lungime=dimensiune(gpu=1024, cpu=32, rapid=16),
        marime_lot=dimensiune(gpu=lot_gpu, cpu=4, rapid=2),
    )


# ---------------------------------------------------------------------------------------------
# Datele: un ciclu ascuns prin vocabular
# ---------------------------------------------------------------------------------------------


class DateCiclu:
    """Secvențe dintr-un ciclu ascuns care trece o dată prin fiecare jeton al vocabularului
    (o permutare aleatoare, fixată de `samanta`). O secvență începe undeva în ciclu și îl
    urmează: după jetonul `a` vine mereu `urmatorul[a]`. Regula se învață (pierderea scade de
    la ln(vocabular) spre 0), spre deosebire de jetoanele pur aleatoare ale lui `lot_aleator`."""

    def __init__(self, configuratie: ConfiguratieTransformer, dispozitiv=None, samanta: int = 0):
        self.configuratie = configuratie
        self.dispozitiv = torch.device(dispozitiv or "cpu")
        generator = torch.Generator().manual_seed(samanta)
        self.ordine = torch.randperm(configuratie.vocabular, generator=generator)
        self.urmatorul = torch.empty_like(self.ordine)
        self.urmatorul[self.ordine] = self.ordine.roll(-1)
        self._generator = torch.Generator().manual_seed(samanta + 1)
        self._ordine_dispozitiv = self.ordine.to(self.dispozitiv)

    def secvente(self, numar: int, lungime: int, generator: torch.Generator | None = None) -> torch.Tensor:
        """`numar` secvențe de câte `lungime` jetoane, fiecare pornită dintr-un punct aleator al ciclului."""
        v = self.configuratie.vocabular
        starturi = torch.randint(v, (numar, 1), generator=generator or self._generator)
        pozitii = (starturi + torch.arange(lungime)) % v
        return self._ordine_dispozitiv[pozitii.to(self.dispozitiv)]

    def lot(self, generator: torch.Generator | None = None) -> tuple[torch.Tensor, torch.Tensor]:
        """Un lot (intrări, ținte): țintele sunt intrările deplasate cu o poziție."""
        c = self.configuratie
        jetoane = self.secvente(c.marime_lot, c.lungime + 1, generator)
        return jetoane[:, :-1].contiguous(), jetoane[:, 1:].contiguous()

    def loturi(self, numar: int, samanta: int = 1) -> list[tuple[torch.Tensor, torch.Tensor]]:
        """`numar` loturi, aceleași pentru aceeași `samanta` (ca variantele comparate să vadă
        exact aceleași date)."""
        generator = torch.Generator().manual_seed(samanta)
        return [self.lot(generator) for _ in range(numar)]

    def respecta_regula(self, jetoane: torch.Tensor) -> bool:
        """Adevărat dacă fiecare jeton din `jetoane` (un vector) e urmat de succesorul lui din ciclu."""
        jetoane = jetoane.flatten().cpu()
        return bool((self.urmatorul[jetoane[:-1]] == jetoane[1:]).all())


# ---------------------------------------------------------------------------------------------
# Antrenarea
# ---------------------------------------------------------------------------------------------


def optimizare_cu_rata_tensor(model: nn.Module, rata: float = 1e-3, compilat: bool = True, **optiuni):
    """AdamW pe `model.parameters()`, cu rata de învățare ținută într-un tensor
    (`lr=torch.tensor(rata)`), și `pas()`: un pas al optimizatorului, compilat cu
    `torch.compile` (dacă `compilat`). Întoarce `(optimizator, pas)`.

    De ce un tensor: o rată dată ca număr Python e, pentru Dynamo, o constantă a grafului,
    păzită de o gardă; prima valoare nouă recompilează (în versiunile recente, a doua compilare
    face numărul simbolic; cu `specialize_float=True`, fiecare valoare nouă ar recompila). Un
    tensor e o intrare a grafului, din prima: îi schimbi valoarea pe loc
    (`optimizator.param_groups[0]["lr"].fill_(r)`, sau cu un planificator, de exemplu
    `LambdaLR`) și graful rămâne același."""
    optimizator = torch.optim.AdamW(model.parameters(), lr=torch.tensor(rata))

    def pas_optimizator():
        optimizator.step()

    pas = torch.compile(invelis_nou(pas_optimizator, "pas_optimizator"), **optiuni) if compilat else pas_optimizator
    return optimizator, pas


@dataclass
class Rulare:
    """O rulare de antrenare: pierderea la fiecare pas, durata primului pas (cu compilarea, la
    o variantă compilată) și a celorlalți, împreună; din primul pas, separat, partea de înainte
    și înapoi (`primul_inainte_inapoi_s`, fără pasul optimizatorului)."""

    nume: str
    pierderi: list[float]
    prima_s: float
    restul_s: float
    primul_inainte_inapoi_s: float = 0.0

    @property
    def pe_pas_s(self) -> float:
        """Durata medie a unui pas, fără primul."""
        return self.restul_s / max(1, len(self.pierderi) - 1)

    @property
    def total_s(self) -> float:
        return self.prima_s + self.restul_s


def antreneaza(
    model: nn.Module,
    loturi: Sequence[tuple[torch.Tensor, torch.Tensor]],
    calcul_pierdere: Callable,
    pas_optimizator: Callable,
    optimizator: torch.optim.Optimizer,
    nume: str = "",
    program_rata: Callable[[int], float] | None = None,
    scalare: "torch.amp.GradScaler | None" = None,
) -> Rulare:
    """Antrenează `model` câte un pas pe fiecare lot din `loturi`: `calcul_pierdere(intrari,
    tinte)` (eager sau compilat, eventual sub autocast), `backward`, `pas_optimizator()`.

    `program_rata(t)`, dacă e dat, pune rata pasului t în tensorul ratei (pe loc, fără
    recompilare). Cu `scalare` (un `GradScaler`, pentru float16), pierderea e înmulțită înainte
    de `backward` și pasul optimizatorului îl face `scalare.step` (eager: el decide dacă pasul
    se face). Pierderile se citesc de pe GPU abia la final, ca bucla să nu aștepte după fiecare
    pas. Întoarce o `Rulare`."""
    model.train()
    rata = optimizator.param_groups[0]["lr"]
    pierderi = []
    prima_s = 0.0
    sincronizeaza()
    start = time.perf_counter()
    for t, (intrari, tinte) in enumerate(loturi):
        if program_rata is not None:
            valoare = program_rata(t)
            if isinstance(rata, torch.Tensor):
                rata.fill_(valoare)
            else:
                optimizator.param_groups[0]["lr"] = valoare
        optimizator.zero_grad(set_to_none=True)
        pierdere_pas = calcul_pierdere(intrari, tinte)
        (pierdere_pas if scalare is None else scalare.scale(pierdere_pas)).backward()
        if t == 0:
            sincronizeaza()
            inainte_inapoi_s = time.perf_counter() - start
        if scalare is not None:
            scalare.step(optimizator)
            scalare.update()
        else:
            pas_optimizator()
        pierderi.append(pierdere_pas.detach())
        if t == 0:
            sincronizeaza()
            prima_s = time.perf_counter() - start
            start = time.perf_counter()
    sincronizeaza()
    restul_s = time.perf_counter() - start
    return Rulare(nume, [float(p) for p in torch.stack(pierderi).float().cpu()], prima_s, restul_s, inainte_inapoi_s)


def medii_pe_ferestre(pierderi: Sequence[float], fereastra: int) -> torch.Tensor:
    """Media pierderii pe ferestre consecutive de câte `fereastra` pași (ultima fereastră
    incompletă se lasă deoparte): curba netezită, de comparat între precizii."""
    valori = torch.tensor(list(pierderi), dtype=torch.float64)
    numar = len(valori) // fereastra
    return valori[: numar * fereastra].view(numar, fereastra).mean(dim=1)


def chei_fara_prefix(stare: Mapping[str, torch.Tensor], prefix: str = PREFIX_COMPILAT) -> dict:
    """`state_dict`-ul unui model compilat cu `torch.compile(model)`, cu cheile fără prefixul
    `_orig_mod.`: se încarcă într-un model necompilat."""
    return {(cheie[len(prefix):] if cheie.startswith(prefix) else cheie): valoare for cheie, valoare in stare.items()}


# ---------------------------------------------------------------------------------------------
# Modurile, unul lângă altul
# ---------------------------------------------------------------------------------------------


def moduri_pentru_mediu(max_autotune: bool = False) -> list[str]:
    """Modurile comparate pe mașina ta.

    - Pe un GPU: eager, default, reduce-overhead și, doar cu `max_autotune=True`, cele două
      moduri max-autotune: reglarea lor costă secunde sau zeci de secunde pentru fiecare formă de
      produs de matrice (pe un H200, minute întregi pe modelul capitolului).
    - Pe procesor: eager și default. Grafurile CUDA nu există acolo (reduce-overhead ar fi doar
      modul implicit, compilat încă o dată), iar reglarea automată e scumpă."""
    if not torch.cuda.is_available():
        return ["eager", "default"]
    moduri = ["eager", "default", "reduce-overhead"]
    return moduri + (["max-autotune", "max-autotune-no-cudagraphs"] if max_autotune else [])


def functie_pentru_mod(functie: Callable, mod: str, nume: str = "", pas_nou: bool = False) -> Callable:
    """`functie` compilată în modul `mod` (`dynamic=False`), într-un înveliș nou (cu propriul
    cache Dynamo); pentru „eager”, `functie` neschimbată.

    Cu `pas_nou=True` (la inferență), fiecare apel începe cu
    `torch.compiler.cudagraph_mark_step_begin()`, în toate modurile, ca apelurile comparate să
    fie identice. De ce: după ce ai chemat-o o dată în proces (de exemplu la antrenarea cu
    `reduce-overhead`), grafurile CUDA ale lui Inductor încep un pas nou DOAR când o chemi; fără
    ea, la inferență, fiecare apel rămâne în pasul vechi, iar `reduce-overhead` nu mai reia graful
    CUDA curat (pe un H200, inferența a ieșit așa mai lentă decât eager)."""
    compilata = functie if mod == "eager" else torch.compile(
        invelis_nou(functie, f"{nume}_{mod}"), mode=None if mod == "default" else mod, dynamic=False
    )
    if not pas_nou:
        return compilata

    def apel_pas_nou(*argumente, **argumente_numite):
        torch.compiler.cudagraph_mark_step_begin()
        return compilata(*argumente, **argumente_numite)

    apel_pas_nou.__name__ = getattr(compilata, "__name__", "functie")
    return apel_pas_nou


def constructor_pas_antrenare(
    calcul_pierdere: Callable,
    optimizator: torch.optim.Optimizer,
    pas_optimizator: Callable,
    intrari: torch.Tensor,
    tinte: torch.Tensor,
    compilate: Mapping[str, Callable] | None = None,
) -> Callable[[str], Callable[[], None]]:
    """`construieste(mod)` pentru `compara_moduri`: pasul complet de antrenare al modului,
    același în toate modurile: `zero_grad(set_to_none=True)`, începutul unui pas nou pentru
    grafurile CUDA (`torch.compiler.cudagraph_mark_step_begin()`; fără el, cu `reduce-overhead`,
    gradienții, ieșiri ale grafului, ar fi suprascriși de pasul următor), pierderea compilată în
    acel mod (`compilate[mod]`, dacă există, altfel `functie_pentru_mod`), `backward` și pasul
    optimizatorului: `pas_optimizator` (compilat) la modurile compilate, `optimizator.step`
    (eager) la eager."""
    compilate = dict(compilate or {})

    def construieste(mod: str) -> Callable[[], None]:
        if mod == "eager":
            calcul, pas_opt = calcul_pierdere, optimizator.step
        else:
            if mod not in compilate:
                compilate[mod] = functie_pentru_mod(calcul_pierdere, mod, "antrenare")
            calcul, pas_opt = compilate[mod], pas_optimizator

        def pas():
            optimizator.zero_grad(set_to_none=True)
            torch.compiler.cudagraph_mark_step_begin()
            calcul(intrari, tinte).backward()
            pas_opt()

        return pas

    return construieste


def varf_memorie_mib(apel: Callable) -> float | None:
    """Vârful memoriei alocate pe GPU (MiB) în timpul unui apel (`torch.cuda.max_memory_allocated`,
    după `reset_peak_memory_stats`); None pe procesor, unde nu se măsoară."""
    if not torch.cuda.is_available():
        return None
    torch.cuda.synchronize()
    torch.cuda.reset_peak_memory_stats()
    apel()
    torch.cuda.synchronize()
    return torch.cuda.max_memory_allocated() / 2**20


@dataclass
class ComparatieModuri:
    """Modurile comparate pe un calcul (antrenare sau inferență): timpul pe pas (`pe_pas`, din
    `compara`), primul apel (`prima_s`: compilarea plus o rulare; la eager, un apel obișnuit),
    vârful de memorie (`memorie_mib`; None pe procesor) și funcțiile compilate."""

    parte: str
    pe_pas: Comparatie
    prima_s: dict
    memorie_mib: dict
    functii: dict = field(default_factory=dict)

    @property
    def moduri(self) -> list[str]:
        return list(self.pe_pas.masuratori)

    def pas_s(self, mod: str) -> float:
        return self.pe_pas[mod].mediana_s

    def amortizare(self, mod: str) -> int | None:
        """Pasul de la care `mod` a costat în total cel mult cât eager (None: niciodată)."""
        eager = self.pas_s("eager")
        return apel_de_amortizare(eager, eager, self.prima_s[mod], self.pas_s(mod))

    def cost_total_s(self, mod: str, pasi: int) -> float:
        """Timpul total al `pasi` pași: primul apel + (pași − 1) · timpul pe pas."""
        return cost_total(self.prima_s[mod], self.pas_s(mod), pasi)

    def masuratori_servire(self) -> dict:
        """Cifrele fiecărui mod, în forma exercițiului 2: `prima_s`, `pe_apel_ms`, `memorie_mib`
        (0 pe procesor, unde memoria nu se măsoară)."""
        return {
            mod: {
                "prima_s": self.prima_s[mod],
                "pe_apel_ms": self.pas_s(mod) * 1e3,
                "memorie_mib": self.memorie_mib.get(mod) or 0.0,
            }
            for mod in self.moduri
        }


def compara_moduri(
    construieste: Callable[[str], Callable],
    *argumente,
    moduri: Sequence[str] | None = None,
    parte: str = "inferenta",
    existente: Mapping[str, tuple[Callable, float]] | None = None,
    fara_cache: bool = True,
    runde: int = 5,
    timp_minim_s: float = 0.3,
    inainte_de_compilare: Callable[[str], object] | None = None,
) -> ComparatieModuri:
    """Compară modurile pe un calcul: `construieste(mod)` întoarce funcția modului (pentru
    „eager”, cea necompilată), apelată cu `*argumente` (un pas de antrenare sau o inferență; de
    exemplu `lambda mod: functie_pentru_mod(f, mod)`).

    Pentru fiecare mod compilat: funcția construită, apoi primul apel cu `timp_compilare`
    (compilatorul încălzit, implicit cu un cache gol); un mod din `existente` (mod → (funcția
    compilată, primul ei apel)) e refolosit, fără încă o compilare. Apoi timpul pe pas al
    tuturor, cu `compara` (intercalat, în runde) și vârful memoriei la câte un apel.
    `inainte_de_compilare(mod)` se apelează înainte de fiecare compilare (de exemplu, ca să
    prindă jurnalele)."""
    moduri = list(moduri or moduri_pentru_mediu())
    existente = dict(existente or {})
    pe_gpu = any(isinstance(a, torch.Tensor) and a.is_cuda for a in argumente) or (
        not argumente and torch.cuda.is_available()
    )
    incalzeste_compilatorul("cuda" if pe_gpu else "cpu")
    functii, prima_s = {}, {}
    for mod in moduri:
        if mod == "eager":
            functii[mod] = construieste(mod)
            continue
        if mod in existente:
            functii[mod], prima_s[mod] = existente[mod]
            continue
        if inainte_de_compilare is not None:
            inainte_de_compilare(mod)
        functii[mod] = construieste(mod)
        prima_s[mod] = timp_compilare(functii[mod], *argumente, pe_gpu=pe_gpu, fara_cache=fara_cache)
    pe_pas = compara(functii, *argumente, runde=runde, timp_minim_s=timp_minim_s, pe_gpu=pe_gpu)
    if "eager" in functii:
        prima_s["eager"] = pe_pas["eager"].mediana_s
    memorie = {mod: varf_memorie_mib(lambda f=f: f(*argumente)) for mod, f in functii.items()}
    return ComparatieModuri(parte=parte, pe_pas=pe_pas, prima_s=prima_s, memorie_mib=memorie, functii=functii)


# ---------------------------------------------------------------------------------------------
# Grafurile compilate și compilarea regională
# ---------------------------------------------------------------------------------------------


@contextlib.contextmanager
def numara_grafuri():
    """Numără grafurile compilate de Dynamo cât ține blocul (inclusiv recompilările), din
    contorul lui Dynamo `torch._dynamo.utils.counters["stats"]["unique_graphs"]`.

        with numara_grafuri() as grafuri:
            f(x)
        grafuri["numar"]
    """
    from torch._dynamo.utils import counters

    rezultat = {"numar": 0}
    inainte = counters["stats"]["unique_graphs"]
    try:
        yield rezultat
    finally:
        rezultat["numar"] = counters["stats"]["unique_graphs"] - inainte


def _compileaza_straturile(model: ReteaTransformer, **optiuni) -> ReteaTransformer:
    for strat in model.straturi:
        strat.compile(**optiuni)
    return model


@dataclass
class CompilareRegionala:
    """Compilarea modelului întreg față de cea a blocului repetat: primul apel la rece (cache
    gol) și la cald (cache-ul de pe disc plin, Dynamo pornit de la zero), grafurile compilate,
    timpul pe pas al celor două variante și pe cel al variantei eager."""

    rece_s: dict
    cald_s: dict
    grafuri: dict
    pe_pas: Comparatie
    nr_straturi: int

    def accelerare_rece(self) -> float:
        return self.rece_s["model întreg"] / self.rece_s["regional"]

    def diferenta_pas(self) -> float:
        """Cu cât e mai lent (pozitiv) sau mai rapid (negativ) pasul regional decât cel al
        modelului compilat întreg, ca fracție (0,03 = 3%)."""
        return self.pe_pas["regional"].mediana_s / self.pe_pas["model întreg"].mediana_s - 1


def compilare_regionala(
    configuratie: ConfiguratieTransformer | None = None,
    precizie: torch.dtype | None = None,
    dispozitiv=None,
    inapoi: bool = True,
    runde: int = 5,
) -> CompilareRegionala:
    """Măsoară compilarea regională pe un model cu multe straturi identice (implicit,
    `configuratie_regionala()`): `model.compile()` pe modelul întreg față de `strat.compile()`
    pe fiecare `BlocTransformer`.

    Pentru fiecare variantă: un model nou, primul pas (înainte și, dacă `inapoi`, înapoi) la rece,
    într-un cache gol; apoi `torch._dynamo.reset()` (Dynamo uită tot ce a compilat în proces,
    inclusiv alte funcții: ele se vor recompila la următorul apel) și primul pas al unui model
    nou, la cald, cu cache-ul de pe disc al lui Inductor plin. La final, timpul pe pas al celor
    două variante compilate și al celei eager, cu `compara`."""
    configuratie = configuratie or configuratie_regionala()
    dispozitiv = torch.device(dispozitiv or ("cuda" if torch.cuda.is_available() else "cpu"))
    pe_gpu = dispozitiv.type == "cuda"
    date = DateCiclu(configuratie, dispozitiv)
    intrari, tinte = date.lot()
    torch.manual_seed(0)
    baza = ReteaTransformer(configuratie).to(dispozitiv)
    if not inapoi:
        baza.eval()

    def pas_pentru(model):
        calcul = cu_precizie(lambda x, y: F.cross_entropy(model(x).flatten(0, 1).float(), y.flatten()), precizie, dispozitiv.type)
        if inapoi:
            def pas():
                model.zero_grad(set_to_none=True)
                calcul(intrari, tinte).backward()
        else:
            def pas():
                with torch.no_grad():
                    calcul(intrari, tinte)
        return pas

    compilari = {
        "model întreg": lambda m: (m.compile(), m)[1],
        "regional": _compileaza_straturile,
    }
    incalzeste_compilatorul(dispozitiv.type)
    rece, cald, grafuri, pasi = {}, {}, {}, {"eager": pas_pentru(baza)}
    for nume, compileaza in compilari.items():
        with cache_gol():
            torch._dynamo.reset()
            model = compileaza(copy.deepcopy(baza))
            with numara_grafuri() as numarate:
                rece[nume] = timp_prima_apelare(pas_pentru(model), pe_gpu=pe_gpu)
            grafuri[nume] = numarate["numar"]
            torch._dynamo.reset()
            model = compileaza(copy.deepcopy(baza))
            pasi[nume] = pas_pentru(model)
            cald[nume] = timp_prima_apelare(pasi[nume], pe_gpu=pe_gpu)
    pe_pas = compara(pasi, runde=runde, timp_minim_s=0.5, pe_gpu=pe_gpu)
    return CompilareRegionala(rece, cald, grafuri, pe_pas, configuratie.nr_straturi)


# ---------------------------------------------------------------------------------------------
# Generarea cu lotul 1, cu găleți
# ---------------------------------------------------------------------------------------------


def marime_galeata(lungime: int, minim: int = 16, maxim: int | None = None) -> int:
    """Găleata unei lungimi: cea mai mică putere a lui 2 ≥ `lungime` (cel puțin `minim`), până
    la 64; peste 64, cel mai mic multiplu de 64 ≥ `lungime`. Cel mult `maxim`, dacă e dat."""
    if lungime < 1:
        raise ValueError("lungimea trebuie să fie cel puțin 1")
    if lungime <= 64:
        galeata = max(minim, 1 << (lungime - 1).bit_length())
    else:
        galeata = -(-lungime // 64) * 64
    if maxim is not None:
        if lungime > maxim:
            raise ValueError(f"lungimea {lungime} depășește maximul {maxim}")
        galeata = min(galeata, maxim)
    return galeata


@torch.no_grad()
def genereaza(
    logituri: Callable[[torch.Tensor], torch.Tensor],
    prompt: torch.Tensor,
    jetoane_noi: int,
    galeti: bool = False,
    minim_galeata: int = 16,
    lungime_maxima: int | None = None,
) -> torch.Tensor:
    """Generează lacom (*greedy*) `jetoane_noi` jetoane după `prompt` (formă 1 × lungime), ca
    la servire cu lotul 1, fără cache KV: la fiecare jeton, `logituri(secventa)` rulează pe toată
    secvența de până atunci și se ia logit-ul ultimei poziții reale.

    Cu `galeti=True`, secvența e completată la dreapta (cu jetonul 0) până la `marime_galeata`:
    atenția e cauzală, deci pozițiile de completare, aflate după toate pozițiile reale, nu
    schimbă logit-urile acestora. Așa, funcția compilată vede doar câteva forme (câte o găleată),
    nu una nouă la fiecare jeton."""
    secventa = torch.empty(1, prompt.shape[1] + jetoane_noi, dtype=prompt.dtype, device=prompt.device)
    secventa[:, : prompt.shape[1]] = prompt
    lungime = prompt.shape[1]
    for _ in range(jetoane_noi):
        if galeti:
            latime = marime_galeata(lungime, minim_galeata, lungime_maxima)
            intrare = torch.zeros(1, latime, dtype=prompt.dtype, device=prompt.device)
            intrare[:, :lungime] = secventa[:, :lungime]
        else:
            intrare = secventa[:, :lungime]
        iesire = logituri(intrare)
        secventa[:, lungime] = iesire[:, lungime - 1].argmax(dim=-1)
        lungime += 1
    return secventa
