"""Modelul întreg, antrenat și servit compilat (capitolul 06 și `benchmarks/capitolul06.py`).

- **Date învățabile** (`DateCiclu`): secvențe care urmează un ciclu ascuns prin tot vocabularul
  (după jetonul `a` vine mereu același jeton); un model care învață regula coboară pierderea de
  la ln(vocabular) spre zero; în câteva sute de pași ajunge mult sub ln(vocabular). Cu jetoane
  pur aleatoare n-ar avea ce învăța.
- **Antrenarea scurtă** (`antreneaza`): pierderea compilată (sau eager), pasul optimizatorului
  compilat, cu rata de învățare ținută într-un tensor (`optimizare_cu_rata_tensor`), ca un
  program al ratei să nu recompileze; precizia mașinii (bfloat16, float16 cu `GradScaler`,
  float32). Varianta eager primește forma ei cea mai bună (`optimizare_eager`): AdamW cu
  `fused=True` și rata ca număr Python.
- **`model.compile()` față de `torch.compile(model)`**: cheile din `state_dict`
  (`chei_fara_prefix` scoate prefixul `_orig_mod.`).
- **Modurile, unul lângă altul** (`compara_moduri`): timpul pe pas (intercalat, `compara`),
  timpul până la regim (apelurile 1–3 ale unei funcții compilate noi, cache gol:
  `timp_pana_la_regim`), transformat în primul apel al modelului amortizării, memoria cerută de
  un pas (creșterea peste memoria de dinainte) și, la modurile cu grafuri CUDA, memoria rezervată
  de grupul lor (`memorie_grafuri_cuda_mib`), plus pasul de la care modul s-a amortizat față de
  eager (`amortizare.apel_de_amortizare`).
- **Compilarea regională** (`compilare_regionala`): fiecare `BlocTransformer` compilat (același
  graf, refolosit de toate straturile) față de modelul întreg, la rece și la cald.
- **Generarea cu lotul 1** (`genereaza`): la fiecare jeton, modelul rulează pe toată secvența de
  până atunci (fără cache KV), pe lungimea exactă sau completată la dreapta până la o
  „găleată” (`marime_galeata`, `galeti_folosite`); `numara_grafuri` spune câte grafuri a
  compilat Dynamo.
- **Tabelele, graficele și cifrele capitolului**: ce tipărește și ce desenează notebook-ul
  (`tabel_pasi_adamw`, `tabel_rulari`, `grafic_pierderi`, `tabel_moduri`, `grafic_moduri`,
  `grafic_marime_moduri`, `tabel_regionala`, `tabel_megacache`, `tabel_decodare`,
  `tabel_tehnici`) și cifrele pe care le înregistrează pentru raportul validării, pe GPU
  (`inregistreaza_pasii_adamw`, `kerneluri_la_inferenta`, `inregistreaza_modurile`,
  `inregistreaza_regionala`, `inregistreaza_megacache`, `inregistreaza_decodarea`); pe procesor,
  acestea din urmă îți arată cifrele de referință.

La import, modulul oprește un singur avertisment al lui Dynamo, fără rost pentru cursant:
„Profiler record function … will be ignored”, scris la prima compilare a unui `Optimizer.step`
(vezi `_FaraMarcajProfiler`).
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import logging
import math
import time
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import torch
import torch.nn.functional as F
from torch import nn

from .. import cifre
from ..amortizare import apel_de_amortizare, cost_total
from ..masurare import Comparatie, compara, numara_kerneluri, timp_prima_apelare
from ..masurare_compilare import (
    APELURI_PANA_LA_REGIM,
    PornireCompilata,
    cache_gol,
    incalzeste_compilatorul,
    invelis_nou,
    timp_pana_la_regim,
)
from ..mediu import dimensiune, gpu_mare, sincronizeaza
from ..modele import ConfiguratieTransformer, ReteaTransformer, configuratie_pentru_mediu, cu_precizie

__all__ = [
    "MODURI",
    "PREFIX_COMPILAT",
    "configuratie_capitol",
    "VOCABULAR_GPU_MIC",
    "configuratie_regionala",
    "DateCiclu",
    "optimizare_cu_rata_tensor",
    "optimizare_eager",
    "varianta_adamw",
    "pune_rata",
    "CHEI_FORME_ADAMW",
    "tabel_pasi_adamw",
    "inregistreaza_pasii_adamw",
    "pas_cu_scalare",
    "Rulare",
    "antreneaza",
    "medii_pe_ferestre",
    "descrie_antrenarea",
    "tabel_rulari",
    "grafic_pierderi",
    "abatere_maxima",
    "RULARI_ZGOMOT",
    "FACTOR_ZGOMOT",
    "PARTE_NESIGURA",
    "VERDICTE_PRECIZIE",
    "VerdictPrecizie",
    "PlicZgomot",
    "tabel_plic",
    "grafic_plic",
    "inregistreaza_precizia",
    "chei_fara_prefix",
    "moduri_pentru_mediu",
    "functie_pentru_mod",
    "constructor_pas_antrenare",
    "ComparatieModuri",
    "compara_moduri",
    "eticheta_mod",
    "note_etichete",
    "inregistreaza_comparatia",
    "kerneluri_la_inferenta",
    "tabel_moduri",
    "inregistreaza_modurile",
    "grafic_moduri",
    "MARIMI_MODURI",
    "grafic_marime_moduri",
    "MODURI_CU_GRAFURI_CUDA",
    "crestere_memorie_mib",
    "memorie_grafuri_cuda_mib",
    "numara_grafuri",
    "CompilareRegionala",
    "compilare_regionala",
    "tabel_regionala",
    "inregistreaza_regionala",
    "tabel_megacache",
    "inregistreaza_megacache",
    "marime_galeata",
    "galeti_folosite",
    "genereaza",
    "CHEI_DECODARE",
    "tabel_decodare",
    "inregistreaza_decodarea",
    "tabel_tehnici",
]

#: Modurile lui `torch.compile` comparate în capitol, plus eager.
MODURI = ("eager", "default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs")

#: Modurile care pun calculul compilat în grafuri CUDA (capitolul 04).
MODURI_CU_GRAFURI_CUDA = ("reduce-overhead", "max-autotune")

#: Prefixul pe care `torch.compile(model)` îl pune cheilor din `state_dict`.
PREFIX_COMPILAT = "_orig_mod."


class _FaraMarcajProfiler(logging.Filter):
    """Oprește avertismentul lui Dynamo „Profiler record function … will be ignored”: pasul
    unui optimizator PyTorch (`Optimizer.step`) e învelit în `torch.autograd.profiler.record_function`,
    un marcaj pentru profiler pe care Dynamo, când compilează pasul, îl lasă deoparte. Nu spune
    nimic greșit (pasul compilat e corect; doar profilerul nu mai vede marcajul), dar apare, o
    singură dată pe proces, în engleză, pe fundal roșu, la prima compilare a pasului."""

    def filter(self, inregistrare: logging.LogRecord) -> bool:
        return not str(inregistrare.msg).startswith(("Profiler record function", "Profiler function"))


for _nume in ("torch._dynamo.variables.ctx_manager", "torch._dynamo.variables.torch"):
    if not any(isinstance(f, _FaraMarcajProfiler) for f in logging.getLogger(_nume).filters):
        logging.getLogger(_nume).addFilter(_FaraMarcajProfiler())


#: Vocabularul capitolului pe un GPU cu mai puțin de 40 GiB (un T4), unde lotul are doar 4 secvențe.
VOCABULAR_GPU_MIC = 8192


def configuratie_capitol() -> ConfiguratieTransformer:
    """Configurația capitolului: cea a cursului (`configuratie_pentru_mediu`): pe un GPU,
    4 straturi de lățime 512, vocabularul 50 304, 16 secvențe de 1 024 de jetoane.

    Pe un GPU cu mai puțin de 40 GiB (un T4), lotul are 4 secvențe, iar vocabularul
    `VOCABULAR_GPU_MIC` (8 192): cu 4 secvențe pe lot, un ciclu prin 50 304 de jetoane nu se
    învață în câteva sute de pași. Pe un H200, în 200 de pași cu rata 3e-3, pierderea a coborât
    de la 10,93 la 2,64 cu lotul 16, dar doar la 9,61 cu lotul 4 (și la 9,75 în 800 de pași),
    indiferent de precizie; cu lotul 4 și vocabularul 8 192, de la 9,10 la 4,23."""
    configuratie = configuratie_pentru_mediu()
    if configuratie.vocabular > VOCABULAR_GPU_MIC and not gpu_mare():  # pe procesor, vocabularul e deja mic
        configuratie = dataclasses.replace(configuratie, vocabular=VOCABULAR_GPU_MIC)
    return configuratie


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
    if not gpu_mare():  # memoria GPU-ului, după `mediu` (un T4 simulat e mic)
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
    `LambdaLR`) și graful rămâne același. Când urmărește primul pas al unui optimizator încă fără
    stare, cu toți parametrii pe GPU, Dynamo pune grupurile în modul `capturable=True`: numărul
    pasului (`step`) se ține într-un tensor pe GPU, fără sincronizări cu procesorul (rata rămâne
    tensorul dat aici, pe procesor: o intrare a grafului). Inductor fuzionează actualizările
    tuturor parametrilor.

    Pentru varianta eager, folosește `optimizare_eager`: un AdamW eager cu rata într-un tensor
    și `capturable=False` renunță în tăcere la `foreach` și actualizează parametrii unul câte
    unul (torch/optim/adam.py), deci ar fi o referință dezavantajată."""
    optimizator = torch.optim.AdamW(model.parameters(), lr=torch.tensor(rata))

    def pas_optimizator():
        optimizator.step()

    pas = torch.compile(invelis_nou(pas_optimizator, "pas_optimizator"), **optiuni) if compilat else pas_optimizator
    return optimizator, pas


#: Tipurile de dispozitiv pe care AdamW are varianta `fused=True` în toate versiunile țintă ale
#: cursului (torch 2.11–2.14): GPU-urile CUDA și, de la torch 2.4, procesorul.
_DISPOZITIVE_FUSED = ("cuda", "cpu")


def optimizare_eager(model: nn.Module, rata: float = 1e-3):
    """AdamW pe `model.parameters()` în forma lui eager cea mai bună, cu rata ca număr Python
    (`lr=rata`, un float): `fused=True` (câteva kernel-uri pentru toți parametrii) pe un GPU CUDA
    sau pe procesor, unde PyTorch îl are, altfel `foreach=True` (câte o operație pe lista
    tuturor parametrilor). Întoarce `(optimizator, pas)`, cu `pas = optimizator.step`.

    Eager n-are grafuri, deci o rată float nu recompilează nimic: programul ratei o schimbă cu
    `pune_rata`. Pe procesor, `fused=True` a ieșit și el cel mai rapid (pe modelul capitolului,
    de câteva ori față de bucla pe tensori)."""
    parametri = list(model.parameters())
    tipuri = {p.device.type for p in parametri}
    if len(tipuri) == 1 and tipuri <= set(_DISPOZITIVE_FUSED) and all(p.is_floating_point() for p in parametri):
        optimizator = torch.optim.AdamW(parametri, lr=float(rata), fused=True)
    else:
        optimizator = torch.optim.AdamW(parametri, lr=float(rata), foreach=True)
    return optimizator, optimizator.step


def varianta_adamw(optimizator: torch.optim.Optimizer) -> str:
    """Felul în care un pas eager al lui Adam/AdamW își actualizează parametrii, după opțiunile
    primului grup (regulile din torch/optim/adam.py): „fused”, „foreach” sau „buclă pe tensori”.
    Cu opțiunile implicite (`foreach=None`, `fused=None`), PyTorch alege `foreach` pe un GPU CUDA,
    mai puțin când rata e un tensor și `capturable=False`: atunci, în tăcere, bucla pe tensori;
    pe procesor, implicit tot bucla."""
    grup = optimizator.param_groups[0]
    if grup.get("fused"):
        return "fused"
    if grup.get("foreach"):
        return "foreach"
    if grup.get("foreach") is None:
        pe_cuda = all(p.is_cuda for p in grup["params"])
        rata_tensor = isinstance(grup["lr"], torch.Tensor)
        if pe_cuda and not (rata_tensor and not grup.get("capturable")):
            return "foreach"
    return "buclă pe tensori"


def pune_rata(optimizator: torch.optim.Optimizer, valoare: float) -> None:
    """Pune rata `valoare` în fiecare grup al optimizatorului: pe loc, în tensorul ratei
    (`fill_`, fără recompilare la un pas compilat), sau ca număr, dacă rata e un float (eager)."""
    for grup in optimizator.param_groups:
        if isinstance(grup["lr"], torch.Tensor):
            grup["lr"].fill_(valoare)
        else:
            grup["lr"] = valoare


#: Formele pasului AdamW eager comparate în secțiunea 1 a capitolului (numele lor în notebook) și
#: cheia fiecăreia în raportul validării („06.pas_adamw_eager_<cheie>_ms”).
CHEI_FORME_ADAMW = {
    "rata în tensor, capturable=False": "tensor",
    "foreach=True, rata float": "foreach",
    "fused=True, rata float": "fused",
}


def tabel_pasi_adamw(forme: Mapping[str, torch.optim.Optimizer], pasi: Comparatie, model: nn.Module) -> str:
    """Tabelul pașilor AdamW eager, de tipărit: pe câți parametri (și tensori-parametri) lucrează
    pasul, apoi, pentru fiecare formă din `forme` (numele → optimizatorul), drumul ales de PyTorch
    (`varianta_adamw`) și mediana timpului pe pas, din comparația `pasi`."""
    randuri = [f"Pasul AdamW eager pe {cifre.cu_substantiv(model.numar_parametri(), 'parametru', 'parametri')} "
               f"({cifre.cu_substantiv(len(list(model.parameters())), 'tensor-parametru', 'tensori-parametri')}):"]
    for nume, optimizator in forme.items():
        randuri.append(f"  {nume:34} drumul: {varianta_adamw(optimizator):17} {cifre.format_timp(pasi[nume].mediana_s):>9}")
    return "\n".join(randuri)


def inregistreaza_pasii_adamw(pasi: Comparatie, pe_gpu: bool) -> None:
    """Pe GPU, înregistrează timpul pe pas al fiecărei forme din `CHEI_FORME_ADAMW` (comparația
    `pasi` le are pe toate, cu aceleași nume); pe procesor, tipărește cifrele de referință."""
    if pe_gpu:
        for nume, cheie in CHEI_FORME_ADAMW.items():
            cifre.inregistreaza(f"06.pas_adamw_eager_{cheie}_ms", pasi[nume], "ms", f"pasul AdamW eager, {nume}")
    else:
        print("\nReferința, pe GPU:")
        cifre.afiseaza_referinta("06.pas_adamw")


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


def _gradienti_finiti(optimizator: torch.optim.Optimizer) -> bool:
    """Adevărat dacă toți gradienții parametrilor optimizatorului sunt finiți (o singură
    sincronizare pe dispozitiv)."""
    gradienti = [p.grad for g in optimizator.param_groups for p in g["params"] if p.grad is not None]
    if not gradienti:
        return True
    pe_dispozitiv: dict = {}
    for g in gradienti:
        pe_dispozitiv.setdefault(g.device, []).append(torch.isfinite(g).all())
    return all(bool(torch.stack(valori).all()) for valori in pe_dispozitiv.values())


def pas_cu_scalare(scalare: "torch.amp.GradScaler", optimizator: torch.optim.Optimizer, pas_optimizator: Callable) -> bool:
    """Pasul optimizatorului cu un `GradScaler` (float16), care folosește chiar `pas_optimizator`
    (de exemplu, pasul compilat): `scalare.unscale_(optimizator)` împarte gradienții la factorul
    de scalare, pasul se face doar dacă toți gradienții sunt finiți, iar `scalare.update()`
    ajustează factorul. Întoarce True dacă pasul s-a făcut.

    De ce nu `scalare.step(optimizator)`: acela cheamă `optimizator.step()` direct, eager, deci
    pasul compilat n-ar rula niciodată. Aici doar API-ul public al lui `GradScaler`: `unscale_`
    și `update` (care citește gradienții nefiniți găsiți de `unscale_`)."""
    scalare.unscale_(optimizator)
    facut = _gradienti_finiti(optimizator)
    if facut:
        pas_optimizator()
    scalare.update()
    return facut


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

    `program_rata(t)`, dacă e dat, pune rata pasului t în optimizator (`pune_rata`: pe loc în
    tensorul ratei, fără recompilare, sau ca număr, la un optimizator eager cu rata float). Cu
    `scalare` (un `GradScaler`, pentru float16), pierderea e înmulțită înainte de `backward`, iar
    pasul îl face `pas_cu_scalare`: gradienții readuși la scara lor (`unscale_`), apoi tot
    `pas_optimizator()` (deci pasul compilat, dacă e compilat), sărit dacă un gradient nu e
    finit. Pierderile se citesc de pe GPU abia la final, ca bucla să nu aștepte la fiecare
    pas. Întoarce o `Rulare`."""
    model.train()
    pierderi = []
    prima_s = 0.0
    inainte_inapoi_s = 0.0
    sincronizeaza()
    start = time.perf_counter()
    for t, (intrari, tinte) in enumerate(loturi):
        if program_rata is not None:
            pune_rata(optimizator, program_rata(t))
        optimizator.zero_grad(set_to_none=True)
        pierdere_pas = calcul_pierdere(intrari, tinte)
        (pierdere_pas if scalare is None else scalare.scale(pierdere_pas)).backward()
        if t == 0:
            sincronizeaza()
            inainte_inapoi_s = time.perf_counter() - start
        if scalare is not None:
            pas_cu_scalare(scalare, optimizator, pas_optimizator)
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


def descrie_antrenarea(configuratie: ConfiguratieTransformer, model: nn.Module, pasi: int, nume_precizie: str) -> str:
    """Două rânduri despre antrenarea capitolului: modelul (straturi, lățime, vocabular,
    parametri) și loturile (formă, câți pași, precizia, pierderea de pornire așteptată,
    ln(vocabular))."""
    c = configuratie
    return "\n".join([
        f"Modelul: {cifre.cu_substantiv(c.nr_straturi, 'strat', 'straturi')} de lățime {cifre.format_numar(c.dim_model)}, "
        f"vocabular de {cifre.cu_substantiv(c.vocabular, 'jeton', 'jetoane')}, "
        f"{cifre.cu_substantiv(model.numar_parametri(), 'parametru', 'parametri')}",
        f"Loturile: {c.marime_lot} × {cifre.cu_substantiv(c.lungime, 'jeton', 'jetoane')}, {cifre.cu_substantiv(pasi, 'pas', 'pași')}; "
        f"precizia: {nume_precizie}; pierderea de pornire așteptată: ln({cifre.format_numar(c.vocabular)}) = "
        f"{cifre.format_numar(math.log(c.vocabular), 2)}",
    ])


def tabel_rulari(rulari: Mapping[str, Rulare]) -> str:
    """Tabelul rulărilor de antrenare, de tipărit: pierderea la primul pas și media ultimilor 10
    pași, durata primului pas (cu compilarea, la o variantă compilată), timpul mediu pe pas după
    el și durata totală."""
    randuri = [f"{'':10} {'pierderea: început':>19} {'final':>7} {'primul pas':>11} {'apoi, pe pas':>13} {'total':>9}"]
    for nume, r in rulari.items():
        final = sum(r.pierderi[-10:]) / 10
        randuri.append(f"{nume:10} {cifre.format_numar(r.pierderi[0], 2):>19} {cifre.format_numar(final, 2):>7} "
                       f"{cifre.format_timp(r.prima_s):>11} {cifre.format_timp(r.pe_pas_s):>13} {cifre.format_timp(r.total_s):>9}")
    return "\n".join(randuri)


def grafic_pierderi(rulari: Mapping[str, Rulare], vocabular: int, nume_precizie: str):
    """Curbele pierderii, pas cu pas, câte una pe rulare, lângă ln(vocabular), pierderea unui model
    care ghicește la întâmplare. Întoarce figura (de afișat cu `grafice.arata`)."""
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 3.6))
    for nume, r in rulari.items():
        ax.plot(range(1, len(r.pierderi) + 1), r.pierderi, label=nume, alpha=0.8)
    ax.axhline(math.log(vocabular), color="gray", linestyle=":", label="ln(vocabular): ghicit la întâmplare")
    ax.set(xlabel="pasul", ylabel="pierderea", title=f"Antrenarea pe ciclul ascuns ({nume_precizie})")
    ax.legend()
    return fig


#: Câte rulări eager identice în precizie redusă (aceleași ponderi de pornire, aceleași loturi)
#: formează plicul de zgomot al capitolului 06: cel puțin 3, ca pragul să cuprindă și distanțele
#: dintre ele, nu doar abaterile lor de la float32.
RULARI_ZGOMOT = 4

#: Până la câte ori pragul plicului poate ajunge abaterea unei curbe compilate ca diferența să fie
#: socotită a preciziei reduse, nu a compilatorului. Pragul e el însuși o cifră zgomotoasă (cea mai
#: mare dintre câteva distanțe între curbe care se despart haotic), deci o rulare compilată
#: obișnuită îl poate depăși puțin; `benchmarks/zgomot_precizie.py` măsoară, pe mașina ta, cât de
#: des ar trece de factor o rulare în care nu s-a schimbat nimic.
FACTOR_ZGOMOT = 3.0

#: Peste ce parte din coborârea pierderii (prima fereastră a curbei float32 minus ultima) poate
#: ajunge pragul plicului ca verdictul să mai însemne ceva. Dincolo, rulările eager identice nu
#: sunt de acord nici între ele asupra curbei: zgomotul e cât semnalul, la bugetul acesta de pași.
PARTE_NESIGURA = 0.25

#: Felurile verdictului despre precizie.
VERDICTE_PRECIZIE = ("precizia", "compilatorul", "nedecis")


def abatere_maxima(a: torch.Tensor, b: torch.Tensor) -> float:
    """Cea mai mare diferență, în valoare absolută, dintre două curbe netezite (de exemplu
    `medii_pe_ferestre`), în unitățile pierderii."""
    return float((a - b).abs().max())


@dataclass(frozen=True)
class VerdictPrecizie:
    """Ce spune abaterea unei curbe față de plicul de zgomot: `fel` e „precizia” (în limita
    zgomotului), „compilatorul” (mult peste) sau „nedecis” (zgomotul e cât semnalul); `text` e
    propoziția pentru cursant."""

    fel: str
    abatere: float
    prag: float
    raport: float
    text: str

    def __str__(self) -> str:
        return self.text


@dataclass(frozen=True)
class PlicZgomot:
    """Plicul de zgomot al unei antrenări în precizie redusă: curba eager în float32 (`fp32`) și
    câteva rulări eager identice în precizie redusă (`eager`), toate netezite pe ferestre
    (`medii_pe_ferestre`). Pragul e cea mai mare dintre distanțele pe care zgomotul singur le
    produce: a fiecărei rulări eager față de float32 și a rulărilor eager între ele. O curbă
    compilată se judecă după abaterea ei de la float32, raportată la prag."""

    fp32: torch.Tensor
    eager: tuple[torch.Tensor, ...]
    fereastra: int = 1

    @property
    def abateri_fp32(self) -> tuple[float, ...]:
        """Abaterea fiecărei rulări eager în precizie redusă de la float32."""
        return tuple(abatere_maxima(e, self.fp32) for e in self.eager)

    @property
    def distante_intre_rulari(self) -> tuple[float, ...]:
        """Distanța dintre fiecare pereche de rulări eager identice în precizie redusă."""
        return tuple(abatere_maxima(a, b) for i, a in enumerate(self.eager) for b in self.eager[i + 1:])

    @property
    def prag(self) -> float:
        """Cea mai mare distanță produsă de zgomot: față de float32 sau între rulări."""
        return max(self.abateri_fp32 + self.distante_intre_rulari, default=0.0)

    @property
    def coborare(self) -> float:
        """Cât coboară pierderea pe curba float32, de la prima fereastră la ultima."""
        return float(self.fp32[0] - self.fp32[-1]) if len(self.fp32) else 0.0

    @property
    def nesigur(self) -> bool:
        """Adevărat când pragul e prea mare față de coborârea pierderii (`PARTE_NESIGURA`): la
        bugetul acesta, verdictul ar depinde de noroc."""
        return self.coborare <= 0 or self.prag > PARTE_NESIGURA * self.coborare

    def banda(self) -> tuple[torch.Tensor, torch.Tensor]:
        """Pentru fiecare fereastră, cea mai mică și cea mai mare medie a rulărilor eager în
        precizie redusă: banda de desenat în jurul curbelor."""
        stiva = torch.stack(list(self.eager))
        return stiva.min(dim=0).values, stiva.max(dim=0).values

    def raport(self, curba: torch.Tensor) -> float:
        """Abaterea curbei de la float32, în multipli ai pragului (infinit, dacă pragul e 0)."""
        abatere = abatere_maxima(curba, self.fp32)
        return abatere / self.prag if self.prag > 0 else math.inf

    def verdict(self, curba: torch.Tensor, ce: str = "Curba compilată", factor: float = FACTOR_ZGOMOT) -> VerdictPrecizie:
        """Verdictul pentru `curba` (de exemplu, compilată în precizie redusă), cu propoziția care
        îl spune și cifrele din care urmează."""
        from ..cifre import cu_substantiv, cu_unitate, format_numar, format_procent

        abatere = abatere_maxima(curba, self.fp32)
        n = len(self.eager)
        rulari = cu_substantiv(n, "rulare eager", "rulări eager")
        inceput = f"{ce} se abate de la eager în float32 cu {format_numar(abatere)}"
        if self.prag <= 0:
            return VerdictPrecizie("nedecis", abatere, 0.0, math.inf, (
                f"{inceput}, dar cele {rulari} în precizie redusă n-au dat nicio diferență față de float32 "
                "(pragul a ieșit 0): n-ai cu ce compara."))
        raport = abatere / self.prag
        prag = (f"{cu_unitate(raport, '×')} pragul de zgomot ({format_numar(self.prag)}: cea mai mare distanță "
                f"dintre cele {rulari} în precizie redusă, între ele sau față de float32)")
        if self.nesigur:
            parte = format_procent(self.prag / self.coborare) if self.coborare > 0 else "mai mult decât toată"
            return VerdictPrecizie("nedecis", abatere, self.prag, raport, (
                f"{inceput}, adică {prag}. Dar pragul însuși e {parte} din cât coboară pierderea: rulările eager "
                f"identice nu sunt de acord nici între ele asupra curbei, deci la acest buget "
                f"({cu_substantiv(len(self.fp32) * self.fereastra, 'pas', 'pași')}) zgomotul e cât semnalul și nu poți "
                "spune dacă diferența vine din precizie sau din compilator. Ca să afli, antrenează mai mulți pași "
                "sau pe loturi mai mari."))
        if raport <= factor:
            return VerdictPrecizie("precizia", abatere, self.prag, raport, (
                f"{inceput}, adică {prag}. Cel mult {cu_unitate(factor, '×')} pragul: compilatorul nu schimbă curba "
                "mai mult decât o schimbă precizia redusă și zgomotul rulărilor identice."))
        return VerdictPrecizie("compilatorul", abatere, self.prag, raport, (
            f"{inceput}, adică {prag}. Peste {cu_unitate(factor, '×')} pragul: compilatorul schimbă curba mai mult "
            "decât o schimbă precizia singură; caută cauza (capitolul 07, secțiunea 5)."))


def tabel_plic(plic: PlicZgomot, curba: torch.Tensor, nume_precizie: str) -> str:
    """Distanțele plicului și ale curbei de judecat (de exemplu, compilată), ca tabel de tipărit,
    în unitățile pierderii (cea mai mare diferență a mediilor pe ferestre)."""
    from ..cifre import cu_substantiv, format_numar

    randuri = [
        (f"eager {nume_precizie} față de eager float32 (cea mai mare din {len(plic.eager)})", max(plic.abateri_fp32)),
        (f"eager {nume_precizie} între ele (cea mai mare din "
         f"{cu_substantiv(len(plic.distante_intre_rulari), 'pereche', 'perechi')})", max(plic.distante_intre_rulari, default=0.0)),
        ("pragul de zgomot (cea mai mare dintre cele de mai sus)", plic.prag),
        (f"compilat {nume_precizie} față de eager float32", abatere_maxima(curba, plic.fp32)),
        (f"compilat {nume_precizie} față de cea mai apropiată rulare eager {nume_precizie}",
         min(abatere_maxima(curba, e) for e in plic.eager)),
    ]
    latime = max(len(nume) for nume, _ in randuri)
    return "\n".join(f"  {nume:{latime}}  {format_numar(valoare):>7}" for nume, valoare in randuri)


def grafic_plic(plic: PlicZgomot, curba: torch.Tensor, nume_precizie: str):
    """Două grafice: curbele (float32, banda rulărilor eager în precizie redusă, curba de judecat)
    și diferența fiecăreia față de float32, fereastră cu fereastră, lângă pragul de zgomot."""
    import matplotlib.pyplot as plt

    from ..cifre import cu_substantiv

    ferestre = list(range(len(plic.fp32)))
    jos, sus = plic.banda()
    fig, (ax, ax_dif) = plt.subplots(1, 2, figsize=(11, 3.4))
    ax.plot(ferestre, plic.fp32.tolist(), marker="o", color="black", label="eager, float32")
    ax.fill_between(ferestre, jos.tolist(), sus.tolist(), alpha=0.3, color="tab:blue",
                    label=f"eager, {nume_precizie}: {cu_substantiv(len(plic.eager), 'rulare', 'rulări')}")
    ax.plot(ferestre, curba.tolist(), marker="s", color="tab:green", label=f"compilat, {nume_precizie}")
    ax.set(xlabel=f"fereastra (câte {cu_substantiv(plic.fereastra, 'pas', 'pași')})", ylabel="pierderea medie",
           title="Curbele pierderii")
    ax.legend()
    for i, e in enumerate(plic.eager):
        ax_dif.plot(ferestre, (e - plic.fp32).abs().tolist(), "o--", color="tab:blue", alpha=0.5,
                    label=f"eager {nume_precizie} ({len(plic.eager)} rulări)" if i == 0 else None)
    ax_dif.plot(ferestre, (curba - plic.fp32).abs().tolist(), "s-", color="tab:green", label=f"compilat {nume_precizie}")
    ax_dif.axhline(plic.prag, color="gray", linestyle=":", label="pragul de zgomot")
    ax_dif.set(xlabel="fereastra", ylabel="|diferența față de float32|", title="Față de eager în float32")
    ax_dif.legend()
    fig.tight_layout()
    return fig


def inregistreaza_precizia(plic: PlicZgomot, verdict: VerdictPrecizie, nume_precizie: str) -> None:
    """Cifrele secțiunii de precizie a capitolului 06, pentru raportul validării. Distanțele se
    compară între rulări prin diferența lor, cu pragul plicului măsurat acum (două rulări ale
    capitolului pot da curbe care diferă cât rulările eager identice); verdictul trebuie să fie
    același."""
    from .. import cifre

    n = len(plic.eager)
    cifre.inregistreaza("06.plic_abatere_compilat", verdict.abatere, "",
                        f"diferența maximă a mediilor pierderii, compilat {nume_precizie} față de eager float32",
                        prag_absolut=plic.prag)
    cifre.inregistreaza("06.plic_prag", plic.prag, "",
                        f"pragul de zgomot: cea mai mare distanță dintre {n} rulări eager {nume_precizie} identice, "
                        "între ele sau față de eager float32", prag_absolut=plic.prag)
    cifre.inregistreaza("06.plic_distanta_eager", max(plic.distante_intre_rulari, default=0.0), "",
                        f"cea mai mare distanță dintre două rulări eager {nume_precizie} identice ({n} rulări)",
                        prag_absolut=plic.prag)
    cifre.inregistreaza("06.plic_verdict", VERDICTE_PRECIZIE.index(verdict.fel) + 1, "",
                        "verdictul despre precizie: 1 = diferența e a preciziei, 2 = a compilatorului, 3 = nedecis",
                        prag_absolut=0.0)


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
    optimizatorului: `pas_optimizator` la modurile compilate, `optimizator.step` (eager) la eager.

    Atenție la numele modului: doar pierderea (înainte și înapoi) se compilează în modul `mod`.
    Pasul optimizatorului e același `pas_optimizator` în toate modurile compilate, compilat o
    singură dată, în modul în care l-ai compilat tu (în capitol, modul implicit): la
    `reduce-overhead` și `max-autotune`, el nu intră în grafurile CUDA. Pașii cronometrați nu
    folosesc `GradScaler` (nici în float16)."""
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


def crestere_memorie_mib(apel: Callable) -> float | None:
    """Cât crește memoria alocată pe GPU (MiB) în timpul unui apel: vârful din timpul apelului
    (`torch.cuda.max_memory_allocated`, după `reset_peak_memory_stats`) minus memoria alocată
    chiar înainte (`torch.cuda.memory_allocated`). Nu numără ce era deja în memorie (ponderile,
    stările optimizatorului, loturile), ci doar ce cere apelul în plus: activările, gradienții,
    rezultatele intermediare. None pe procesor, unde nu se măsoară.

    La o reluare de graf CUDA, kernel-urile capturate nu cer memorie de la alocator: ele
    folosesc grupul de memorie rezervat la capturare (vezi `memorie_grafuri_cuda_mib`)."""
    if not torch.cuda.is_available():
        return None
    torch.cuda.synchronize()
    inainte = torch.cuda.memory_allocated()
    torch.cuda.reset_peak_memory_stats()
    apel()
    torch.cuda.synchronize()
    return max(0, torch.cuda.max_memory_allocated() - inainte) / 2**20


def memorie_grafuri_cuda_mib() -> float | None:
    """Memoria (MiB) rezervată acum pe GPU-ul curent de grupurile private ale alocatorului CUDA:
    grupul de memorie (*memory pool*) în care grafurile CUDA ale lui Inductor (`reduce-overhead`,
    `max-autotune`) își țin tensorii între reluări. Suma segmentelor din
    `torch.cuda.memory_snapshot()` cu `segment_pool_id` diferit de (0, 0), grupul obișnuit (așa
    își găsește și Inductor segmentele, în torch/_inductor/cudagraph_trees.py). None pe procesor.

    Grupul e unul singur pe proces și pe GPU, comun tuturor funcțiilor compilate cu grafuri CUDA:
    un graf capturat după altul refolosește memoria rezervată de acela. Diferența de dinainte și
    de după primele apeluri ale unui mod arată deci ce a rezervat el în plus."""
    if not torch.cuda.is_available() or not torch.cuda.is_initialized():
        return None if not torch.cuda.is_available() else 0.0
    dispozitiv = torch.cuda.current_device()
    total = 0
    for segment in torch.cuda.memory_snapshot():
        if segment.get("device", dispozitiv) != dispozitiv:
            continue
        if tuple(segment.get("segment_pool_id", (0, 0))) != (0, 0):
            total += segment["total_size"]
    return total / 2**20


@dataclass
class ComparatieModuri:
    """Modurile comparate pe un calcul (antrenare sau inferență):

    - `pe_pas`: timpul pe pas în regim staționar (din `compara`, intercalat, în runde);
    - `pornire`: la fiecare mod compilat, primele trei apeluri ale unei funcții compilate noi
      (`timp_pana_la_regim`, cache gol): compilarea, încălzirea, capturarea grafului CUDA;
    - `prima_s`: primul apel al modelului amortizării, `T(1..3) − 2 · timpul pe pas` (la eager,
      un pas obișnuit), ca `cost_total(prima, pe_pas, n)` să dea timpul real al primelor n pași;
    - `memorie_pas_mib`: cât crește memoria alocată într-un pas (None pe procesor);
    - `grafuri_cuda_mib`: la modurile cu grafuri CUDA, memoria rezervată în plus de grupul lor la
      primele apeluri (None la celelalte moduri și pe procesor);
    - `cache_comun`: modurile compilate în cache-ul lăsat de un mod compilat înaintea lor (primul
      lor apel nu e o compilare la rece);
    - `ordine_compilare`: ordinea în care s-au compilat modurile;
    - `functii`: funcțiile fiecărui mod, gata de folosit."""

    parte: str
    pe_pas: Comparatie
    prima_s: dict
    memorie_pas_mib: dict
    grafuri_cuda_mib: dict = field(default_factory=dict)
    pornire: dict = field(default_factory=dict)
    functii: dict = field(default_factory=dict)
    cache_comun: tuple = ()
    ordine_compilare: tuple = ()

    @property
    def moduri(self) -> list[str]:
        return list(self.pe_pas.masuratori)

    def pas_s(self, mod: str) -> float:
        return self.pe_pas[mod].mediana_s

    def pana_la_regim_s(self, mod: str) -> float:
        """Timpul primelor trei apeluri, T(1..3) (la eager, trei pași obișnuiți)."""
        if mod in self.pornire:
            return self.pornire[mod].total_s
        return APELURI_PANA_LA_REGIM * self.pas_s(mod)

    def memorie_ceruta_mib(self, mod: str) -> float | None:
        """Memoria cerută de mod peste cea deja ocupată: creșterea la un pas plus grupul
        grafurilor CUDA (la modurile cu grafuri CUDA). None pe procesor."""
        pas = self.memorie_pas_mib.get(mod)
        if pas is None:
            return None
        return pas + (self.grafuri_cuda_mib.get(mod) or 0.0)

    def amortizare(self, mod: str) -> int | None:
        """Pasul de la care `mod` a costat în total cel mult cât eager (None: niciodată)."""
        eager = self.pas_s("eager")
        return apel_de_amortizare(eager, eager, self.prima_s[mod], self.pas_s(mod))

    def cost_total_s(self, mod: str, pasi: int) -> float:
        """Timpul total al `pasi` pași: primul apel + (pași − 1) · timpul pe pas."""
        return cost_total(self.prima_s[mod], self.pas_s(mod), pasi)

    def cel_mai_ieftin(self, pasi: int) -> str:
        """Modul cu cel mai mic cost total (`cost_total_s`) pentru o rulare de `pasi` pași."""
        return min(self.moduri, key=lambda mod: self.cost_total_s(mod, pasi))

    def masuratori_servire(self) -> dict:
        """Cifrele fiecărui mod, în forma exercițiului 2: `prima_s`, `pe_apel_ms`, `memorie_mib`
        (memoria cerută: creșterea la un apel plus grupul grafurilor CUDA; 0 pe procesor, unde
        memoria nu se măsoară)."""
        return {
            mod: {
                "prima_s": self.prima_s[mod],
                "pe_apel_ms": self.pas_s(mod) * 1e3,
                "memorie_mib": self.memorie_ceruta_mib(mod) or 0.0,
            }
            for mod in self.moduri
        }


def eticheta_mod(comparatie: "ComparatieModuri", mod: str) -> str:
    """Numele modului în tabele și grafice, cu semnele notelor (`note_etichete`): „*” la
    antrenare, la modurile compilate altele decât cel implicit (pasul optimizatorului e cel
    compilat în modul implicit), „†” la un mod compilat în cache-ul lăsat de altul."""
    eticheta = mod
    if comparatie.parte == "antrenare" and mod not in ("eager", "default"):
        eticheta += "*"
    if mod in comparatie.cache_comun:
        eticheta += "†"
    return eticheta


def note_etichete(comparatie: "ComparatieModuri") -> list[str]:
    """Notele semnelor din `eticheta_mod`, pentru modurile de față."""
    note = []
    if any(eticheta_mod(comparatie, m).endswith(("*", "*†")) for m in comparatie.moduri):
        note.append("* doar pierderea (înainte și înapoi) e compilată în acest mod; pasul optimizatorului e cel compilat "
                    "o dată, în modul implicit, în afara grafurilor CUDA")
    if comparatie.cache_comun:
        note.append("† compilat în cache-ul lăsat de modul compilat înaintea lui (reglarea automată refolosită): "
                    "primele lui apeluri nu sunt o compilare la rece")
    return note


def inregistreaza_comparatia(comparatie: "ComparatieModuri") -> None:
    """Înregistrează cifrele unei comparații (`cifre.inregistreaza`), cu aceleași chei în capitol
    și în `benchmarks/capitolul06.py`: „06.moduri_<parte>_<mod>_…”.

    Cheile al căror înțeles s-a schimbat au nume noi, ca o referință veche să nu fie comparată cu
    altă mărime: la antrenare, eager e AdamW cu `fused=True` („eager_fused”), iar accelerările
    sunt față de el („_accelerare_fata_de_fused”); „_pornire_s” e timpul primelor trei apeluri
    (cache gol), „_pornire_cache_comun_s” la un mod compilat în cache-ul altuia;
    „_memorie_pas_mib” e creșterea memoriei la un pas, „_grafuri_cuda_mib” grupul grafurilor CUDA."""
    from ..cifre import inregistreaza

    antrenare = comparatie.parte == "antrenare"
    cheie_parte = "antrenare" if antrenare else "inferenta"
    parte = "antrenare" if antrenare else "inferență"
    for mod in comparatie.moduri:
        nume = "eager_fused" if antrenare and mod == "eager" else mod
        baza = f"06.moduri_{cheie_parte}_{nume}"
        descriere = f"{parte}, {mod}" + (" (AdamW fused=True, rata float)" if nume == "eager_fused" else "")
        inregistreaza(f"{baza}_ms", comparatie.pe_pas[mod], "ms", f"{descriere}: timpul pe pas")
        if comparatie.memorie_pas_mib.get(mod) is not None:
            inregistreaza(f"{baza}_memorie_pas_mib", comparatie.memorie_pas_mib[mod], "MiB",
                          f"{descriere}: creșterea memoriei alocate într-un pas")
        if comparatie.grafuri_cuda_mib.get(mod) is not None:
            inregistreaza(f"{baza}_grafuri_cuda_mib", comparatie.grafuri_cuda_mib[mod], "MiB",
                          f"{descriere}: grupul de memorie rezervat de grafurile CUDA la primele apeluri")
        if mod == "eager":
            continue
        if mod in comparatie.cache_comun:
            inregistreaza(f"{baza}_pornire_cache_comun_s", comparatie.pana_la_regim_s(mod), "s",
                          f"{descriere}: primele trei apeluri, în cache-ul lăsat de modul dinainte (nu la rece)",
                          depinde_de_procesor=True)
        else:
            inregistreaza(f"{baza}_pornire_s", comparatie.pana_la_regim_s(mod), "s",
                          f"{descriere}: primele trei apeluri (compilare, încălzire, capturare), cache gol",
                          depinde_de_procesor=True)
        sufix = "_accelerare_fata_de_fused" if antrenare else "_accelerare"
        inregistreaza(f"{baza}{sufix}", comparatie.pe_pas.accelerare("eager", mod), "×",
                      f"{descriere} față de eager" + (" cu AdamW fused=True" if antrenare else ""))
        pasi = comparatie.amortizare(mod)
        if pasi is not None:
            inregistreaza(f"{baza}_amortizare_pasi", pasi, "pași",
                          f"{descriere}: pasul de la care s-a amortizat față de eager", depinde_de_procesor=True)


def kerneluri_la_inferenta(comparatie: "ComparatieModuri", intrari: torch.Tensor, pe_gpu: bool) -> dict:
    """Pe GPU, câte kernel-uri lansează o inferență eager și una compilată în modul implicit
    (`numara_kerneluri`, pe funcțiile comparației, cu `intrari`), înregistrate pentru raport:
    `{"eager": …, "default": …}`. Pe procesor, unde codul C++ generat nu apare ca lansări, `{}`."""
    if not pe_gpu:
        return {}
    kerneluri = {mod: numara_kerneluri(comparatie.functii[mod], intrari).numar for mod in ("eager", "default")}
    cifre.inregistreaza("06.kerneluri_eager", kerneluri["eager"], "kernel-uri", "inferență, eager")
    cifre.inregistreaza("06.kerneluri_compilat", kerneluri["default"], "kernel-uri", "inferență, modul implicit")
    return kerneluri


def tabel_moduri(c: "ComparatieModuri") -> str:
    """Tabelul unei comparații a modurilor (o parte: antrenare sau inferență), de tipărit: titlul
    (ordinea în care s-au compilat modurile, ceasul ales), câte un rând pe mod (timpul pe pas,
    apelurile 1–3, primul apel, memoria pasului, grupul grafurilor CUDA, pasul de amortizare),
    notele semnelor din `eticheta_mod` și cum se socotește primul apel."""
    randuri = [
        f"{c.parte.upper()}: modurile compilate în ordinea {', '.join(c.ordine_compilare)}. {c.pe_pas.motiv_ceas}",
        f"{'mod':29} {'pe pas':>9} {'apelurile 1–3':>14} {'primul apel':>12} {'memoria pasului':>16} {'grafuri CUDA':>13} "
        f"{'se amortizează':>20}",
    ]
    for mod in c.moduri:
        pas_mib, grup_mib = c.memorie_pas_mib[mod], c.grafuri_cuda_mib.get(mod)
        memorie = "—" if pas_mib is None else cifre.format_octeti(pas_mib * 2**20)
        grup = "—" if grup_mib is None else cifre.format_octeti(grup_mib * 2**20)
        if mod == "eager":
            amortizare = "—"
        else:
            n = c.amortizare(mod)
            amortizare = "niciodată" if n is None else f"după {cifre.cu_substantiv(n, 'pas', 'pași')}"
        randuri.append(f"{eticheta_mod(c, mod):29} {cifre.format_timp(c.pas_s(mod)):>9} {cifre.format_timp(c.pana_la_regim_s(mod)):>14} "
                       f"{cifre.format_timp(c.prima_s[mod]):>12} {memorie:>16} {grup:>13} {amortizare:>20}")
    randuri += [f"  {nota}" for nota in note_etichete(c)]
    randuri.append("  primul apel = apelurile 1–3 − 2 · timpul pe pas (modelul amortizării); la eager, un pas obișnuit")
    return "\n".join(randuri)


def inregistreaza_modurile(comparatii: Mapping[str, "ComparatieModuri"], pe_gpu: bool, max_autotune: bool) -> None:
    """Pe GPU, înregistrează cifrele fiecărei comparații (`inregistreaza_comparatia`) și, dacă
    modurile max-autotune n-au fost măsurate (`max_autotune` fals), tipărește cifrele lor de
    referință. Pe procesor, unde memoria nu se măsoară, tipărește cifrele de referință ale
    modurilor."""
    if not pe_gpu:
        print("\nPe procesor, memoria nu se măsoară (memory_allocated și memory_snapshot sunt doar pentru GPU). Referința, pe GPU:")
        cifre.afiseaza_referinta("06.moduri")
        return
    if not max_autotune:
        print("\nmax-autotune și max-autotune-no-cudagraphs nu au fost compilate aici (CURS_MAX_AUTOTUNE=1 le măsoară). Referința:")
        cifre.afiseaza_referinta("06.moduri_antrenare_max")
        cifre.afiseaza_referinta("06.moduri_inferenta_max")
    for c in comparatii.values():
        inregistreaza_comparatia(c)


def grafic_moduri(comparatii: Mapping[str, "ComparatieModuri"]):
    """Un rând de grafice pentru fiecare parte (antrenare, inferență): timpul pe pas (bara e
    mediana, linia intervalul 20–80%, lângă ea accelerarea față de eager), timpul până la regim
    (apelurile 1–3) și, pe GPU, memoria cerută: creșterea la un pas (plin) și grupul grafurilor
    CUDA (hașurat). Întoarce figura (de afișat cu `grafice.arata`)."""
    import matplotlib.pyplot as plt

    fig, axe = plt.subplots(len(comparatii), 3, figsize=(11, 2.3 * len(comparatii) + 0.8), squeeze=False)
    culori = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for rand, (parte, c) in enumerate(comparatii.items()):
        moduri = c.moduri
        etichete = [eticheta_mod(c, m) for m in moduri]
        pozitii = list(range(len(moduri)))
        culoare = [culori[i % len(culori)] for i in pozitii]
        ms = [c.pe_pas[m].mediana_s * 1e3 for m in moduri]
        erori = [[(c.pe_pas[m].mediana_s - c.pe_pas[m].cuantila20_s) * 1e3 for m in moduri],
                 [(c.pe_pas[m].cuantila80_s - c.pe_pas[m].mediana_s) * 1e3 for m in moduri]]
        ax = axe[rand][0]
        ax.barh(pozitii, ms, xerr=erori, color=culoare, capsize=3)
        ax.set_yticks(pozitii, etichete)
        ax.invert_yaxis()
        ax.set_xlabel("timp pe pas (ms; mai puțin e mai bine)")
        ax.set_title(f"{parte}: timpul pe pas" + (" (* optimizatorul: default)" if any("*" in e for e in etichete) else ""))
        for i, m in enumerate(moduri):
            text = "" if i == 0 else f" {cifre.cu_unitate(ms[0] / ms[i], '×')}"
            ax.text(ms[i] + erori[1][i], i, text, va="center")
        ax.set_xlim(0, max(v + e for v, e in zip(ms, erori[1])) * 1.35)
        ax = axe[rand][1]
        ax.barh(pozitii, [c.pana_la_regim_s(m) for m in moduri], color=culoare)
        ax.set_yticks(pozitii, [""] * len(moduri))
        ax.invert_yaxis()
        ax.set_xlabel("apelurile 1–3 (s)")
        ax.set_title("timpul până la regim")
        ax = axe[rand][2]
        if all(c.memorie_pas_mib[m] is not None for m in moduri):
            pas = [c.memorie_pas_mib[m] for m in moduri]
            grup = [c.grafuri_cuda_mib.get(m) or 0.0 for m in moduri]
            ax.barh(pozitii, pas, color=culoare)
            ax.barh(pozitii, grup, left=pas, color=culoare, alpha=0.45, hatch="//")
            ax.set_xlim(0, max(a + b for a, b in zip(pas, grup)) * 1.1 or 1)
            ax.set_xlabel("memoria cerută (MiB): pasul (plin) + grafuri CUDA (hașurat)")
        else:
            ax.text(0.5, 0.5, "memoria se măsoară\ndoar pe GPU", ha="center", va="center", transform=ax.transAxes)
            ax.set_xticks([])
        ax.set_yticks(pozitii, [""] * len(moduri))
        ax.invert_yaxis()
        ax.set_title("memoria")
    fig.tight_layout()
    return fig


#: Mărimile exploratorului modurilor (secțiunea 3): numele mărimii → (unitatea, valoarea ei pentru
#: comparația `c`, modul `m` și o rulare de `n` pași; None unde nu se măsoară sau nu are sens).
MARIMI_MODURI = {
    "timpul pe pas": ("ms", lambda c, m, n: c.pas_s(m) * 1e3),
    "timpul până la regim (apelurile 1–3)": ("s", lambda c, m, n: c.pana_la_regim_s(m)),
    "memoria cerută (pas + grafuri CUDA)": ("MiB", lambda c, m, n: c.memorie_ceruta_mib(m)),
    "pasul de amortizare": ("pași", lambda c, m, n: None if m == "eager" else c.amortizare(m)),
    "costul total al rulării": ("s", lambda c, m, n: c.cost_total_s(m, n)),
}


def grafic_marime_moduri(c: "ComparatieModuri", marime: str, pasi: int):
    """Bare orizontale, câte una pe mod, cu mărimea `marime` din `MARIMI_MODURI` (pentru costul
    total, al unei rulări de `pasi` pași), scrisă lângă fiecare bară. Întoarce figura (de afișat
    cu `grafice.arata`)."""
    import matplotlib.pyplot as plt

    unitate, valoare = MARIMI_MODURI[marime]
    valori = {eticheta_mod(c, m): valoare(c, m, pasi) for m in c.moduri}
    fig, ax = plt.subplots(figsize=(7, 0.5 * len(valori) + 1.3))
    pozitii = list(range(len(valori)))
    ax.barh(pozitii, [v or 0 for v in valori.values()], color="tab:blue")
    ax.set_yticks(pozitii, list(valori))
    ax.invert_yaxis()
    for i, v in enumerate(valori.values()):
        if v is None:
            text = " nu se măsoară pe procesor" if marime.startswith("memoria") else " —"
        elif unitate in ("s", "ms"):
            text = " " + cifre.format_timp(v if unitate == "s" else v / 1e3)
        else:
            text = " " + cifre.cu_unitate(v, unitate)
        ax.text(v or 0, i, text, va="center")
    maxim = max([v for v in valori.values() if v] or [1])
    ax.set_xlim(0, maxim * 1.5)
    ax.set_xlabel(f"{marime} ({unitate})")
    titlu = f"{c.parte}: {marime}"
    if marime == "costul total al rulării":
        titlu += f", {cifre.cu_substantiv(pasi, 'pas', 'pași')}"
    ax.set_title(titlu)
    fig.tight_layout()
    return fig


def compara_moduri(
    construieste: Callable[[str], Callable],
    *argumente,
    moduri: Sequence[str] | None = None,
    parte: str = "inferenta",
    existente: Mapping[str, tuple[Callable, PornireCompilata]] | None = None,
    fara_cache: bool = True,
    runde: int = 5,
    timp_minim_s: float = 0.3,
    inainte_de_compilare: Callable[[str], object] | None = None,
    ordine_inversa: bool = False,
    cache_comun: Sequence[str] = (),
) -> ComparatieModuri:
    """Compară modurile pe un calcul: `construieste(mod)` întoarce funcția modului (pentru
    „eager”, cea necompilată), apelată cu `*argumente` (un pas de antrenare sau o inferență; de
    exemplu `lambda mod: functie_pentru_mod(f, mod)`).

    Pentru fiecare mod compilat, în ordinea din `moduri` (sau invers, cu `ordine_inversa`: o
    parte compilată într-o ordine, cealaltă în cealaltă, ca niciun mod să nu fie mereu primul):
    funcția construită, apoi primele trei apeluri cu `timp_pana_la_regim` (compilatorul încălzit,
    implicit cu un cache gol) și memoria rezervată în plus de grupul grafurilor CUDA în timpul
    lor. Un mod din `existente` (mod → (funcția, `PornireCompilata`)) e refolosit, fără încă o
    compilare. Modurile din `cache_comun` se compilează într-un singur cache gol, comun: primul
    dintre ele pornește la rece, următoarele își găsesc în cache ce a lăsat el (de exemplu,
    reglarea automată a produselor de matrice) — primul lor apel nu mai e o compilare la rece.

    Apoi timpul pe pas al tuturor, cu `compara` (intercalat, în runde), memoria cerută de câte un
    pas și primul apel al modelului amortizării, `T(1..3) − 2 · timpul pe pas`.
    `inainte_de_compilare(mod)` se apelează înainte de fiecare compilare (de exemplu, ca să
    prindă jurnalele)."""
    moduri = list(moduri or moduri_pentru_mediu())
    existente = dict(existente or {})
    comune = [m for m in moduri if m in set(cache_comun)]
    pe_gpu = any(isinstance(a, torch.Tensor) and a.is_cuda for a in argumente) or (
        not argumente and torch.cuda.is_available()
    )
    incalzeste_compilatorul("cuda" if pe_gpu else "cpu")
    functii, pornire, grafuri_cuda = {}, {}, {}
    if "eager" in moduri:
        functii["eager"] = construieste("eager")
    compilate = [m for m in moduri if m != "eager"]
    ordine = compilate[::-1] if ordine_inversa else compilate
    refolosite, grup_deschis = [], False
    with contextlib.ExitStack() as stiva:
        for mod in ordine:
            if mod in existente:
                functii[mod], pornire[mod] = existente[mod]
                continue
            if inainte_de_compilare is not None:
                inainte_de_compilare(mod)
            in_comun = mod in comune and fara_cache
            if in_comun:
                if grup_deschis:
                    refolosite.append(mod)  # găsește în cache ce a lăsat primul mod al grupului
                else:
                    stiva.enter_context(cache_gol())  # primul mod al grupului: la rece
                    grup_deschis = True
            functii[mod] = construieste(mod)
            inainte = memorie_grafuri_cuda_mib() if pe_gpu else None
            pornire[mod] = timp_pana_la_regim(functii[mod], *argumente, pe_gpu=pe_gpu, fara_cache=fara_cache and not in_comun)
            if pe_gpu and mod in MODURI_CU_GRAFURI_CUDA:
                grafuri_cuda[mod] = max(0.0, (memorie_grafuri_cuda_mib() or 0.0) - (inainte or 0.0))
            else:
                grafuri_cuda[mod] = None
    functii = {mod: functii[mod] for mod in moduri}
    pe_pas = compara(functii, *argumente, runde=runde, timp_minim_s=timp_minim_s, pe_gpu=pe_gpu)
    prima_s = {mod: pornire[mod].prima_s(pe_pas[mod].mediana_s) for mod in pornire}
    if "eager" in functii:
        prima_s["eager"] = pe_pas["eager"].mediana_s
        grafuri_cuda["eager"] = None
    memorie = {mod: crestere_memorie_mib(lambda f=f: f(*argumente)) for mod, f in functii.items()}
    return ComparatieModuri(
        parte=parte, pe_pas=pe_pas, prima_s=prima_s, memorie_pas_mib=memorie, grafuri_cuda_mib=grafuri_cuda,
        pornire=pornire, functii=functii, cache_comun=tuple(refolosite), ordine_compilare=tuple(ordine),
    )


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


def tabel_regionala(regionala: CompilareRegionala) -> str:
    """Tabelul compilării regionale, de tipărit: pentru modelul compilat întreg și pentru varianta
    regională, primul pas la rece și la cald, grafurile compilate și timpul pe pas; pentru eager,
    doar timpul pe pas."""
    randuri = [f"{'':14} {'la rece':>10} {'la cald':>10} {'grafuri':>8} {'pe pas':>10}"]
    for nume in ("model întreg", "regional"):
        randuri.append(f"{nume:14} {cifre.format_timp(regionala.rece_s[nume]):>10} {cifre.format_timp(regionala.cald_s[nume]):>10} "
                       f"{regionala.grafuri[nume]:>8} {cifre.format_timp(regionala.pe_pas[nume].mediana_s):>10}")
    randuri.append(f"{'eager':14} {'—':>10} {'—':>10} {'—':>8} {cifre.format_timp(regionala.pe_pas['eager'].mediana_s):>10}")
    return "\n".join(randuri)


def inregistreaza_regionala(regionala: CompilareRegionala, pe_gpu: bool) -> None:
    """Pe GPU, înregistrează cifrele compilării regionale: raportul timpilor la rece, primul pas
    la rece și la cald al fiecărei variante, diferența timpului pe pas (în procente). Pe procesor,
    tipărește cifrele de referință."""
    if pe_gpu:
        cifre.inregistreaza("06.regional_rece_accelerare", regionala.accelerare_rece(), "×",
                            "compilarea regională față de modelul întreg, la rece", depinde_de_procesor=True)
        for nume, cheie in (("model întreg", "intreg"), ("regional", "regional")):
            cifre.inregistreaza(f"06.regional_{cheie}_rece_s", regionala.rece_s[nume], "s", f"{nume}: primul pas la rece",
                                depinde_de_procesor=True)
            cifre.inregistreaza(f"06.regional_{cheie}_cald_s", regionala.cald_s[nume], "s", f"{nume}: primul pas la cald",
                                depinde_de_procesor=True)
        cifre.inregistreaza("06.regional_diferenta_pas", regionala.diferenta_pas() * 100, "%", "pasul regional față de modelul întreg")
    else:
        print("\nReferința, pe GPU:")
        cifre.afiseaza_referinta("06.regional")


def tabel_megacache(rece, pornire, cald_s: float) -> str:
    """Ce au măsurat cele două procese noi (`cap05_cache.primul_apel_in_proces_nou`), de tipărit:
    primul pas la rece (cu octeții artefactelor salvate), primul pas cu artefactele încărcate și
    încărcarea lor, pornirea caldă (`cald_s`: primul pas plus încărcarea) față de cea rece, apoi ce
    a rămas în afara timpilor (încălzirea compilatorului, durata proceselor)."""
    return "\n".join([
        f"Rece:                      primul pas {cifre.format_timp(rece.pas_s):>9}; "
        f"artefacte salvate: {cifre.format_octeti(rece.octeti_artefacte or 0)}",
        f"Cu artefactele încărcate:  primul pas {cifre.format_timp(pornire.pas_s):>9}, "
        f"plus încărcarea {cifre.format_timp(pornire.incarcare_s or 0.0)}",
        f"Pornirea caldă costă {cifre.format_procent(cald_s / rece.pas_s)} din cea rece.",
        f"În afara timpilor: încălzirea compilatorului, în fiecare proces ({cifre.format_timp(rece.incalzire_s or 0.0)} și "
        f"{cifre.format_timp(pornire.incalzire_s or 0.0)}); cu pornirea lui Python și importurile, procesele au durat "
        f"{cifre.format_timp(rece.proces_s)} și {cifre.format_timp(pornire.proces_s)}.",
    ])


def inregistreaza_megacache(rece, pornire, cald_s: float, pe_gpu: bool) -> None:
    """Pe GPU, înregistrează primul pas într-un proces nou la rece, cu artefactele încărcate
    (`cald_s`, cu tot cu încărcarea) și încărcarea însăși. Pe procesor, nimic."""
    if not pe_gpu:
        return
    cifre.inregistreaza("06.megacache_rece_incalzit_s", rece.pas_s, "s",
                        "primul pas de antrenare, proces nou cu compilatorul încălzit, cache gol", depinde_de_procesor=True)
    cifre.inregistreaza("06.megacache_cald_incalzit_s", cald_s, "s",
                        "primul pas, proces nou cu compilatorul încălzit, artefactele încărcate (cu încărcarea)", depinde_de_procesor=True)
    cifre.inregistreaza("06.megacache_incarcare_s", pornire.incarcare_s or 0.0, "s", "încărcarea artefactelor mega-cache",
                        depinde_de_procesor=True)


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


def galeti_folosite(lungime_prompt: int, jetoane_noi: int, minim: int = 16, maxim: int | None = None) -> list[int]:
    """Gălețile prin care trece o generare de `jetoane_noi` jetoane după un prompt de
    `lungime_prompt`: la fiecare jeton, modelul rulează pe lungimile `lungime_prompt`, …,
    `lungime_prompt + jetoane_noi − 1`. Câte găleți, atâtea grafuri (cu `dynamic=False`)."""
    return sorted({marime_galeata(n, minim, maxim) for n in range(lungime_prompt, lungime_prompt + jetoane_noi)})


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
    nu una nouă la fiecare jeton.

    Doar `logituri` e (eventual) compilată: la fiecare jeton, copierea în tensorul completat,
    `argmax`-ul, scrierea jetonului nou și bucla Python rulează eager, în afara grafului (și în
    afara grafului CUDA, la `reduce-overhead`)."""
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


#: Strategiile de decodare măsurate pe GPU în secțiunea 5 (numele lor în notebook) și cheia
#: fiecăreia în raportul validării („06.decodare_<cheie>_pe_jeton_ms”).
CHEI_DECODARE = {
    "eager": "eager",
    "default, găleți": "default_galeti",
    "reduce-overhead, găleți": "ro_galeti",
    "default, dynamic=True": "dinamic",
}


def tabel_decodare(decodare: Comparatie, grafuri: Mapping[str, int], prima_s: Mapping[str, float], jetoane_noi: int) -> str:
    """Tabelul decodării, de tipărit: pentru fiecare strategie (în ordinea din `grafuri`),
    grafurile compilate, prima generare (cu compilările ei) și latența pe jeton (mediana
    generării, din `decodare`, împărțită la `jetoane_noi`), apoi ceasul ales de `compara`."""
    randuri = [f"{'strategia':26} {'grafuri':>8} {'prima generare':>15} {'pe jeton':>10}"]
    for nume in grafuri:
        randuri.append(f"{nume:26} {grafuri[nume]:>8} {cifre.format_timp(prima_s[nume]):>15} "
                       f"{cifre.format_timp(decodare[nume].mediana_s / jetoane_noi):>10}")
    randuri.append(decodare.motiv_ceas)
    return "\n".join(randuri)


def inregistreaza_decodarea(decodare: Comparatie, lungime_prompt: int, jetoane_noi: int, galeti: Sequence[int], pe_gpu: bool) -> None:
    """Pe GPU, înregistrează latența pe jeton a fiecărei strategii din `CHEI_DECODARE` (cu
    lungimile parcurse și numărul de găleți în descriere). Pe procesor, unde `reduce-overhead` nu
    există, tipărește cifrele de referință."""
    if pe_gpu:
        for nume, cheie in CHEI_DECODARE.items():
            cifre.inregistreaza(f"06.decodare_{cheie}_pe_jeton_ms", decodare[nume].mediana_s * 1e3 / jetoane_noi, "ms",
                                f"latența pe jeton, lotul 1, {nume}; lungimile {lungime_prompt}–{lungime_prompt + jetoane_noi - 1}, "
                                f"{cifre.cu_substantiv(len(galeti), 'găleată', 'găleți')}", depinde_de_procesor=True)
    else:
        print("\nreduce-overhead are nevoie de un GPU (grafurile CUDA). Referința, pe GPU:")
        cifre.afiseaza_referinta("06.decodare")


# ---------------------------------------------------------------------------------------------
# Ce a adus fiecare tehnică (secțiunea 6)
# ---------------------------------------------------------------------------------------------


def _o_linie(text: str) -> str:
    return text if len(text) <= 100 else text[:99] + "…"


def tabel_tehnici(
    explicatie,
    kerneluri: Mapping[str, int],
    comparatii: Mapping[str, ComparatieModuri],
    decodare: Comparatie,
    grafuri_decodare: Mapping[str, int],
    jetoane_noi: int,
    regionala: CompilareRegionala,
    parte_calda: float | None,
    pe_gpu: bool,
    max_autotune: bool,
) -> str:
    """Tabelul „ce a adus fiecare tehnică” al capitolului, de tipărit, din cifrele măsurate:
    grafurile și întreruperile modelului (`explicatie`, de la `torch._dynamo.explain`), kernel-urile
    unei inferențe (`kerneluri`, gol pe procesor), modurile (`comparatii`, „antrenare” și
    „inferență”), decodarea (`decodare`, `grafuri_decodare`, `jetoane_noi`), compilarea
    regională, pornirea caldă cu mega-cache (`parte_calda`, fracția din pornirea rece; None dacă
    n-a fost măsurată). Pe GPU, și cel mai bun mod, grafurile CUDA și `max-autotune` (măsurat, cu
    `max_autotune`, sau din referință); pe procesor, trimite la referință."""
    antrenare = comparatii["antrenare"]
    randuri = [("fără întreruperi (fullgraph)", f"{cifre.cu_substantiv(explicatie.graph_count, 'graf', 'grafuri')}, "
                f"{cifre.cu_substantiv(explicatie.graph_break_count, 'întrerupere', 'întreruperi')}: modelul se compilează dintr-o bucată")]
    if kerneluri:
        randuri.append(("fuziunea (kernel-uri la inferență)", f"{cifre.format_numar(kerneluri['eager'])} eager → "
                        f"{cifre.format_numar(kerneluri['default'])} compilat"))
    else:
        randuri.append(("fuziunea (kernel-uri la inferență)", "numai pe GPU (pe procesor, codul C++ nu apare ca lansări)"))
    accelerare = antrenare.pe_pas.accelerare("eager", "default")
    randuri.append(("compilarea (antrenare, default)", _o_linie(f"{accelerare} față de eager (AdamW fused=True)")))
    if pe_gpu:
        for parte, c in comparatii.items():
            cel_mai_bun = min(c.moduri[1:], key=c.pas_s)
            randuri.append((f"cel mai bun mod ({parte})", f"{cel_mai_bun}: {c.pe_pas.accelerare('eager', cel_mai_bun)}"))
        randuri.append(("CUDA Graphs (reduce-overhead, lotul 1)", f"{decodare.accelerare('default, găleți', 'reduce-overhead, găleți')} "
                        "față de default, la decodare"))
        if max_autotune:
            randuri.append(("max-autotune (antrenare)", f"{antrenare.pe_pas.accelerare('default', 'max-autotune-no-cudagraphs')} "
                            f"față de default; apelurile 1–3 {cifre.format_timp(antrenare.pana_la_regim_s('max-autotune-no-cudagraphs'))}"))
        else:
            ref_pas = cifre.cifra_referinta("06.moduri_antrenare_max-autotune-no-cudagraphs_accelerare_fata_de_fused")
            ref_pornire = cifre.cifra_referinta("06.moduri_antrenare_max-autotune-no-cudagraphs_pornire_s")
            if ref_pas and ref_pornire:
                randuri.append(("max-autotune (antrenare)", f"nemăsurat aici; referința ({ref_pas['gpu']}): "
                                f"{cifre.cu_unitate(ref_pas['valoare'], '×')} față de eager, apelurile 1–3 {cifre.format_timp(ref_pornire['valoare'])}"))
            else:
                randuri.append(("max-autotune", "nemăsurat aici (secunde sau zeci de secunde de reglare pe fiecare formă)"))
    else:
        randuri.append(("CUDA Graphs, max-autotune", "numai pe GPU: vezi referința de mai jos"))
    if parte_calda is not None:
        randuri.append(("cache-ul (mega-cache, proces nou)", f"pornirea caldă: {cifre.format_procent(parte_calda)} din cea rece"))
    else:
        randuri.append(("cache-ul (mega-cache, proces nou)", "nemăsurat aici: vezi referința de mai jos"))
    randuri.append(("compilarea regională", f"la rece, {cifre.format_procent(1 / regionala.accelerare_rece())} din timpul compilării modelului întreg; "
                    f"pasul {'+' if regionala.diferenta_pas() >= 0 else '−'}{cifre.format_procent(abs(regionala.diferenta_pas()), 1)}"))
    randuri.append(("găleți (decodare)", f"{cifre.cu_substantiv(grafuri_decodare['default, găleți'], 'graf', 'grafuri')} față de "
                    f"{cifre.cu_substantiv(jetoane_noi, 'compilare', 'compilări')} fără găleți (câte una pe jeton); "
                    f"{decodare.accelerare('eager', 'default, găleți')} față de eager"))
    randuri.append(("memoria (antrenare, pe GPU)", "numai pe GPU" if antrenare.memorie_ceruta_mib("eager") is None else
                    _o_linie(f"eager cere {cifre.format_octeti(antrenare.memorie_ceruta_mib('eager') * 2**20)} la un pas, "
                             f"default {cifre.format_octeti(antrenare.memorie_ceruta_mib('default') * 2**20)}")))
    latime = max(len(t) for t, _ in randuri)
    return "\n".join(f"{tehnica:<{latime}}  {contributie}" for tehnica, contributie in randuri)
