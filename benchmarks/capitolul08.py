"""Capitolul 08 pe mai multe procese adevărate, sub `torchrun`: DDP și FSDP2 sub `torch.compile`,
cu timpul pasului de antrenare, grafurile, suprapunerea all-reduce-urilor cu pasul înapoi și
scalarea cu numărul de ranguri. Aceleași unelte ca notebook-ul (`curs_compilare.capitole.cap08_distribuit`).

Pornești scriptul o dată cu un rang, apoi cu mai multe, fiecare rulare cu fișierul ei de cifre
(variabila de mediu `CURS_FISIER_CIFRE` a lui `cifre.inregistreaza`, câte o cifră pe rând, JSON):

    CURS_FISIER_CIFRE=cifre_n1.jsonl torchrun --nproc-per-node=1 benchmarks/capitolul08.py
    CURS_FISIER_CIFRE=cifre_n2.jsonl torchrun --nproc-per-node=2 benchmarks/capitolul08.py --referinta-1 cifre_n1.jsonl
    torchrun --nproc-per-node=2 benchmarks/capitolul08.py --rapid       # modelul mic, puține runde (și testul)
    torchrun --nproc-per-node=8 benchmarks/capitolul08.py --parti pas   # doar pasul de antrenare și suprapunerea

Rangurile vorbesc prin NCCL, câte un GPU pe rang (`cuda:LOCAL_RANK`), când mașina are cel puțin
atâtea GPU-uri câte ranguri; altfel prin gloo, pe procesor. Compilatorul din ranguri e Inductor pe
GPU-uri și „aot_eager” pe procesor (`backend_compilare`: aceleași grafuri, fără cod C++ generat).

Ce măsoară (fiecare parte se poate alege cu `--parti`):

1. `pas` — pasul de antrenare (înainte, înapoi, SGD) al modelului capitolului, `ReteaBlocuri`, în
   patru variante: DDP eager; `torch.compile(DDP(model))` cu `optimize_ddp=True` (DDPOptimizer,
   implicit: un graf pe găleată de gradienți), cu `optimize_ddp=False` (un singur graf) și cu
   `optimize_ddp="python_reducer"` plus autograd compilat (all-reduce-urile intră în graful pasului
   înapoi). Timpul pe pas (mediana rundelor, cu cea mai mică și cea mai mare rundă), debitul pe
   rang (exemple/s), accelerarea față de eager și grafurile compilate de fiecare variantă. Apoi
   suprapunerea: câte all-reduce-uri rulează cât timp pasul înapoi încă calculează, „k din n”.
   Pe GPU-uri, dintr-o urmă `torch.profiler` a câtorva pași: kernel-urile NCCL AllReduce al căror
   interval pe GPU se suprapune cu un kernel de calcul al pasului înapoi (lansat dintr-un nod
   autograd, nu din copierea gradienților în găleți, `suprapuse_din_urma`). Pe gloo, ca în notebook:
   un cârlig de comunicare (*comm hook*, care face exact ce face DDP implicit: all-reduce și
   împărțirea la numărul de procese) notează când pornește fiecare all-reduce, iar cârligele pe
   nodurile autograd notează sfârșitul calculului (`marcheaza_sfarsitul_calculului`); la
   `python_reducer`, unde nu există cârlig de comunicare, numărul vine din graful pasului înapoi
   dat compilatorului (un all-reduce suprapus are calcul între el și `wait_tensor`-ul lui).
2. `galeti` — câte grafuri face DDPOptimizer pentru `bucket_cap_mb` 1, 2, 4, 8 și 25, pe
   `ReteaBlocuri(512, 8)` (straturi de 1 MiB, unde mărimea găleții chiar schimbă ceva), lângă
   numărul prezis de regulă (`grafuri_prezise`).
3. `fsdp` — FSDP2: `fully_shard` pe fiecare bloc și pe rădăcină, pe o rețea de dispozitive, fiecare
   bloc compilat (`bloc.compile`), cu `ReteaBlocuri(..., intrare=True)` (primul bloc primește și el
   un tensor cu `requires_grad`, deci nu se recompilează). Timpul pasului lângă DDP compilat
   (DDPOptimizer) pe același model; pe GPU, memoria de vârf a rangului pentru fiecare (creșterea
   lui `torch.cuda.max_memory_allocated` față de memoria de dinainte de construirea modelului); pe
   procesor, în loc de ea, octeții parametrilor ținuți de rang față de modelul întreg.
4. Scalarea (cu `--referinta-1 FIȘIER`, fișierul de cifre al unei rulări cu un rang, pe aceeași
   configurație): debitul pe rang cu N ranguri și partea din scalarea liniară,
   `debit_N / (N · debit_1)`, unde `debit_N` e debitul tuturor rangurilor.

Disciplina de măsurare. Într-un program cu ranguri, toate rangurile trebuie să facă exact aceleași
operații colective, în aceeași ordine: un număr de repetări ales din mers (ca `timp_minim_s` al lui
`masurare.compara`) ar putea diferi de la un rang la altul și le-ar bloca. Aici numărul e fix:
câțiva pași de încălzire (care compilează), apoi `runde` runde în care variantele se măsoară pe
rând, intercalat (în altă ordine de la o rundă la alta), câte `pasi` pași fiecare; înaintea fiecărei
măsurători, o barieră între ranguri (și `torch.cuda.synchronize()` pe GPU), după ea, o sincronizare;
timpul unei runde e cel mai lung dintre ranguri (`all_reduce` cu MAX), iar cifra e mediana rundelor,
cu cea mai mică și cea mai mare rundă.

Configurațiile: pe GPU-uri, `ReteaBlocuri(4096, 16)` (268 de milioane de parametri, 1 GiB în
float32, TF32 la înmulțiri), un lot de 512 exemple pe rang și găleți de 25 MiB (implicit DDP): un
all-reduce de 1 GiB și un calcul de ordinul câtorva milisecunde pe un H100, deci suprapunerea
contează; 7 runde × 10 pași. Pe procesor sau cu `--rapid`: `ReteaBlocuri(512, 4)` (4 MiB), un lot
de 16 exemple și găleți de 1 MiB, ca să fie mai multe găleți (cu găleți de 25 MiB, modelul mic ar
încăpea într-una singură și n-ar avea ce suprapune). Pe procesor, timpii sunt ai unui procesor
împărțit între ranguri (și, pe gloo, pașii DDP au cârligul de comunicare care notează momentele):
acolo doar numerele (grafuri, all-reduce-uri, suprapuneri, octeți) te învață ceva.

Cifrele (doar rangul 0 le notează) au chei „08.multi_gpu.…_nN”, cu N numărul de ranguri, de
exemplu „08.multi_gpu.pas_compilat_ddpoptimizer_ms_n2”. Tot ce tipărește rangul 0 se scrie imediat
(`flush`), ca o rulare oprită la limita de timp să-și păstreze cifrele.
"""

from __future__ import annotations

import argparse
import datetime as dt
import functools
import gc
import json
import os
import sys
import tempfile
import time
from contextlib import ExitStack, nullcontext
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
from torch.nn.parallel import DistributedDataParallel as DDP  # noqa: E402
from torch.profiler import record_function  # noqa: E402

from curs_compilare import cifre  # noqa: E402
from curs_compilare.capitole.cap08_distribuit import (  # noqa: E402
    ReteaBlocuri,
    _autograd_compilat,
    backend_compilare,
    grafuri_prezise,
    marcheaza_sfarsitul_calculului,
    numar_grafuri_compilate,
    octeti_pe_strat,
)
from curs_compilare.inspectie import goleste_dynamo, motive_recompilare  # noqa: E402
from curs_compilare.masurare import Masuratoare, compara_pasi_ficsi, raport_din  # noqa: E402

_tipareste = functools.partial(print, flush=True)

#: Prefixul cheilor cifrelor acestui script.
PREFIX = "08.multi_gpu."
#: Mărimile găleților (bucket_cap_mb) pentru numărarea grafurilor lui DDPOptimizer.
GALETI_MB = (1, 2, 4, 8, 25)
#: Modelul pe care se numără grafurile pe mărimea găleții: lățimea și numărul de blocuri.
MODEL_GALETI = (512, 8)
#: Părțile scriptului, în ordinea în care rulează.
PARTI = ("pas", "galeti", "fsdp")
_MIB = 2**20


@dataclass(frozen=True)
class Configuratie:
    """Mărimile unei rulări: modelul (`latime`, `blocuri`), lotul pe rang, găleata DDP și câte
    runde, pași pe rundă, pași de încălzire și pași numărați (suprapunerea) se fac."""

    latime: int
    blocuri: int
    lot: int
    galeata_mb: float
    runde: int
    pasi: int
    incalziri: int
    pasi_numarati: int


def configuratie_pentru(pe_gpu: bool, rapid: bool) -> Configuratie:
    """Configurația rulării (vezi descrierea modulului)."""
    if rapid:
        return Configuratie(latime=512, blocuri=4, lot=16, galeata_mb=1, runde=3, pasi=2, incalziri=2, pasi_numarati=2)
    if pe_gpu:
        return Configuratie(latime=4096, blocuri=16, lot=512, galeata_mb=25, runde=7, pasi=10, incalziri=3, pasi_numarati=3)
    return Configuratie(latime=512, blocuri=4, lot=16, galeata_mb=1, runde=5, pasi=5, incalziri=3, pasi_numarati=3)


# ---------------------------------------------------------------------------------------------
# Rangurile: pornirea, sincronizarea, cronometrul cu număr fix de repetări
# ---------------------------------------------------------------------------------------------


@dataclass
class Mediu:
    """Ce știe fiecare rang despre rularea lui: rangul, câte ranguri sunt, backend-ul
    distribuit și al compilatorului, dispozitivul."""

    rang: int
    lume: int
    backend: str
    compilator: str
    dispozitiv: torch.device
    motiv: str

    @property
    def pe_gpu(self) -> bool:
        return self.dispozitiv.type == "cuda"

    @property
    def principal(self) -> bool:
        return self.rang == 0

    def tipareste(self, *texte, **optiuni) -> None:
        if self.principal:
            _tipareste(*texte, **optiuni)

    def sincronizeaza(self) -> None:
        if self.pe_gpu:
            torch.cuda.synchronize(self.dispozitiv)

    def ranguri(self) -> str:
        return cifre.cu_substantiv(self.lume, "rang", "ranguri")

    def sufix(self) -> str:
        return f"_n{self.lume}"

    def inregistreaza(self, nume: str, valoare, unitate: str, descriere: str, **optiuni) -> None:
        """O cifră notată doar de rangul 0, cu cheia „08.multi_gpu.<nume>_nN” și cu numărul de
        ranguri și backend-ul în descriere."""
        if self.principal:
            cifre.inregistreaza(f"{PREFIX}{nume}{self.sufix()}", valoare, unitate,
                                f"{descriere} ({self.ranguri()}, {self.backend})", **optiuni)


def porneste(limita_s: float) -> Mediu:
    """`dist.init_process_group` din variabilele lui torchrun: NCCL cu `cuda:LOCAL_RANK` când
    mașina are cel puțin atâtea GPU-uri câte ranguri, altfel gloo pe procesor. Cu o limită de
    timp: o operație colectivă care nu se încheie în `limita_s` secunde oprește rularea."""
    lume = int(os.environ.get("WORLD_SIZE", "1"))
    rang_local = int(os.environ.get("LOCAL_RANK", "0"))
    gpu = torch.cuda.device_count() if torch.cuda.is_available() else 0
    limita = dt.timedelta(seconds=limita_s)
    if gpu >= lume and dist.is_nccl_available():
        dispozitiv = torch.device("cuda", rang_local)
        torch.cuda.set_device(dispozitiv)
        dist.init_process_group("nccl", timeout=limita, device_id=dispozitiv)
        backend = "nccl"
        motiv = f"NCCL, câte un GPU pe rang ({torch.cuda.get_device_name(dispozitiv)})"
    else:
        dist.init_process_group("gloo", timeout=limita)
        dispozitiv = torch.device("cpu")
        backend = "gloo"
        lipsa = ("mașina n-are niciun GPU" if gpu == 0 else
                 f"mașina are {gpu} GPU-uri pentru {lume} ranguri, iar NCCL cere câte unul pe rang"
                 if gpu < lume else "NCCL lipsește")
        motiv = f"gloo, pe procesor ({lipsa})"
    return Mediu(rang=dist.get_rank(), lume=dist.get_world_size(), backend=backend,
                 compilator=backend_compilare(backend), dispozitiv=dispozitiv, motiv=motiv)


def cronometreaza(mediu: Mediu, pasi: dict[str, Callable[[], None]], *, runde: int, pe_runda: int):
    """Timpul pe pas al fiecărei variante, cu `masurare.compara_pasi_ficsi`: un număr fix de runde
    și de pași (toate rangurile fac aceleași operații colective), variantele intercalate, o barieră
    înaintea fiecărui bloc, iar timpul unei runde e al celui mai lent rang (`all_reduce` cu MAX).
    Încălzirea (și compilarea) se face înainte, de cel care cheamă."""
    def cel_mai_lent(secunde: float) -> float:
        durata = torch.tensor([secunde], dtype=torch.float64, device=mediu.dispozitiv)
        dist.all_reduce(durata, op=dist.ReduceOp.MAX)
        return float(durata.item())

    return compara_pasi_ficsi(pasi, runde=runde, pasi_pe_runda=pe_runda, pe_gpu=mediu.pe_gpu,
                              inainte_de_bloc=dist.barrier, combina=cel_mai_lent)


def descrie_timp(m: Masuratoare) -> str:
    """„12,3 ms (11,9 ms – 13,1 ms)”: mediana rundelor, cu cea mai rapidă și cea mai lentă rundă."""
    return f"{cifre.format_timp(m.mediana_s)} ({cifre.format_timp(m.minim_runde_s)} – {cifre.format_timp(m.maxim_runde_s)})"


def _elibereaza(mediu: Mediu) -> None:
    gc.collect()
    if mediu.pe_gpu:
        torch.cuda.empty_cache()


# ---------------------------------------------------------------------------------------------
# Suprapunerea: din urma profilerului (GPU) și din graful pasului înapoi (python_reducer)
# ---------------------------------------------------------------------------------------------

#: Marcajele `record_function` ale unui pas și ale pasului înapoi, în urma profilerului.
MARCAJ_PAS = "curs_pas"
MARCAJ_INAPOI = "curs_inapoi"


#: Prefixul operației cu care motorul autograd marchează în urmă fiecare nod al pasului înapoi.
NOD_AUTOGRAD = "autograd::engine::evaluate_function: "


def suprapuse_din_urma(evenimente: list[dict]) -> list[tuple[int, int]]:
    """Din evenimentele unei urme Chrome (`profile.export_chrome_trace`, câmpul „traceEvents”),
    pentru fiecare pas marcat cu `MARCAJ_PAS`: (câte kernel-uri NCCL AllReduce s-au suprapus pe
    GPU cu un kernel de calcul al pasului înapoi, câte kernel-uri AllReduce a avut pasul).

    Un kernel aparține pasului (sau pasului înapoi) după momentul în care procesorul l-a lansat
    (evenimentul `cuda_runtime`/`cuda_driver` cu aceeași „correlation”), aflat în intervalul
    marcajului `MARCAJ_PAS` (sau `MARCAJ_INAPOI`). Un all-reduce e un kernel NCCL cu „AllReduce” în
    nume. Un kernel de calcul al pasului înapoi e un kernel care nu e NCCL, lansat în pasul înapoi
    dintr-un nod autograd (`NOD_AUTOGRAD`, pe același fir), dar nu din `AccumulateGrad`: acolo DDP
    doar copiază gradienții în găleți și îi împarte la numărul de procese, iar cu `optimize_ddp=False`
    copierea găleții următoare ar rula lângă all-reduce-ul găleții de dinainte fără ca pasul înapoi
    să mai calculeze ceva. Când niciun kernel nu vine dintr-un astfel de nod (autograd-ul compilat
    rulează tot pasul înapoi ca un singur graf), orice kernel lansat în pasul înapoi e calcul."""
    lansari: dict = {}
    kerneluri, pasi, inapoi, noduri = [], [], [], []
    for e in evenimente:
        if e.get("ph") != "X" or "ts" not in e:
            continue
        categorie = str(e.get("cat", "")).lower()
        argumente = e.get("args") or {}
        inceput, sfarsit = float(e["ts"]), float(e["ts"]) + float(e.get("dur", 0.0))
        fir = (e.get("pid"), e.get("tid"))
        nume = str(e.get("name", ""))
        if categorie == "kernel":
            kerneluri.append((nume, inceput, sfarsit, argumente.get("correlation")))
        elif categorie in ("cuda_runtime", "cuda_driver") and "correlation" in argumente:
            lansari[argumente["correlation"]] = (inceput, fir)
        elif categorie == "user_annotation" and nume == MARCAJ_PAS:
            pasi.append((inceput, sfarsit))
        elif categorie == "user_annotation" and nume == MARCAJ_INAPOI:
            inapoi.append((inceput, sfarsit))
        elif categorie == "cpu_op" and nume.startswith(NOD_AUTOGRAD):
            noduri.append((inceput, sfarsit, fir, "AccumulateGrad" not in nume))
    pasi.sort()
    inapoi.sort()
    rezultat = []
    for pas in pasi:
        fereastra = next((i for i in inapoi if pas[0] <= i[0] <= pas[1]), None)
        noduri_inapoi = [n for n in noduri if fereastra is not None and fereastra[0] <= n[0] <= fereastra[1]]

        calcul, in_fereastra, all_reduce = [], [], []
        for nume, inceput, sfarsit, corelatie in kerneluri:
            lansare, fir = lansari.get(corelatie, (inceput, None))
            nccl = "nccl" in nume.lower()
            if nccl and "allreduce" in nume.lower() and pas[0] <= lansare <= pas[1]:
                all_reduce.append((inceput, sfarsit))
            elif not nccl and fereastra is not None and fereastra[0] <= lansare <= fereastra[1]:
                in_fereastra.append((inceput, sfarsit))
                if any(n0 <= lansare <= n1 and f == fir and e_calcul for n0, n1, f, e_calcul in noduri_inapoi):
                    calcul.append((inceput, sfarsit))
        calcul = calcul or in_fereastra
        suprapuse = sum(any(a0 < c1 and c0 < a1 for c0, c1 in calcul) for a0, a1 in all_reduce)
        rezultat.append((suprapuse, len(all_reduce)))
    return rezultat


#: Operațiile care nu calculează nimic (vederi, indexări, verificări) în graful pasului înapoi.
_FARA_CALCUL = ("getitem", "validate_outputs", "AccumulateGrad", "aten.t.", "aten.view", "aten.reshape",
                "aten.expand", "aten.permute", "aten.detach", "aten._unsafe_view", "aten.alias", "prologue")


def _e_calcul(nod) -> bool:
    tinta = str(nod.target)
    if nod.op != "call_function" or "_c10d_functional" in tinta or "truediv" in tinta:
        return False
    return not any(f in tinta for f in _FARA_CALCUL)


def suprapuse_in_graf(gm: torch.fx.GraphModule) -> tuple[int, int]:
    """(câte all-reduce-uri au calcul între ele și `wait_tensor`-ul lor, câte all-reduce-uri are
    graful), în ordinea în care rulează graful: pe gloo, cu „aot_eager”, un all-reduce pornit
    rulează cât timp graful calculează, până la `wait_tensor`."""
    noduri = list(gm.graph.nodes)
    pozitie = {nod: i for i, nod in enumerate(noduri)}
    suprapuse = total = 0
    for i, nod in enumerate(noduri):
        if nod.op != "call_function" or "all_reduce" not in str(nod.target):
            continue
        total += 1
        asteptari = [pozitie[u] for u in nod.users if "wait_tensor" in str(u.target)]
        capat = min(asteptari) if asteptari else len(noduri)
        suprapuse += any(_e_calcul(n) for n in noduri[i + 1:capat])
    return suprapuse, total


# ---------------------------------------------------------------------------------------------
# Partea 1: pasul de antrenare DDP, eager și compilat, și suprapunerea
# ---------------------------------------------------------------------------------------------

#: Variantele DDP: cheia din numele cifrelor, eticheta, valoarea lui `optimize_ddp` (None: eager).
VARIANTE_DDP = (
    ("eager", "DDP eager", None),
    ("compilat_ddpoptimizer", "compilat, optimize_ddp=True (DDPOptimizer)", True),
    ("compilat_un_graf", "compilat, optimize_ddp=False (un graf)", False),
    ("compilat_python_reducer", "compilat, python_reducer + autograd compilat", "python_reducer"),
)


@dataclass
class VariantaDDP:
    """O variantă DDP gata de măsurat: pasul (`fa_pas`), grafurile compilate la încălzire și
    momentele ultimului pas (all-reduce-urile și sfârșitul calculului înapoi, pe gloo)."""

    cheie: str
    eticheta: str
    mod: object
    mediu: Mediu
    x: torch.Tensor
    grafuri: int = 0
    capturi_inapoi: int = 0
    momente: dict = field(default_factory=lambda: {"all_reduce": [], "sfarsit_calcul": None})
    grafuri_inapoi: list = field(default_factory=list)
    ddp: object = None
    pas_model: object = None
    optimizator: object = None
    compilator_inapoi: object = None

    def context(self):
        """Opțiunea `optimize_ddp` a variantei, pe toată durata pasului (și la compilare)."""
        if self.mod is None:
            return nullcontext()
        return torch._dynamo.config.patch(optimize_ddp=self.mod)

    def fa_pas(self, numara: bool = False, profil: bool = False) -> None:
        self.momente["all_reduce"].clear()
        self.momente["sfarsit_calcul"] = None
        with ExitStack() as stiva:
            stiva.enter_context(self.context())
            if profil:
                stiva.enter_context(record_function(MARCAJ_PAS))
            self.optimizator.zero_grad(set_to_none=True)
            pierdere = self.pas_model(self.x).pow(2).mean()
            if numara and self.compilator_inapoi is None:  # cu autograd compilat, cârligele ar intra în graf
                marcheaza_sfarsitul_calculului(pierdere.grad_fn, self.momente)
            with record_function(MARCAJ_INAPOI) if profil else nullcontext():
                if self.compilator_inapoi is not None:
                    with _autograd_compilat(self.compilator_inapoi):
                        pierdere.backward()
                else:
                    pierdere.backward()
            self.optimizator.step()

    def suprapunere_gloo(self) -> tuple[int, int]:
        """(all-reduce-uri pornite înainte de sfârșitul calculului înapoi, all-reduce-uri), din
        momentele ultimului pas numărat (metoda lui `_experiment_ddp`)."""
        sfarsit = self.momente["sfarsit_calcul"]
        pornite = self.momente["all_reduce"]
        return sum(t < sfarsit for t in pornite), len(pornite)


def construieste_varianta(mediu: Mediu, configuratie: Configuratie, cheie: str, eticheta: str, mod) -> VariantaDDP:
    """Modelul (aceleași greutăți în toate rangurile), DDP-ul, compilarea și optimizatorul unei
    variante. Pe gloo, DDP-ul eager și cele compilate cu DDPOptimizer sau un graf primesc cârligul
    de comunicare care notează când pornește fiecare all-reduce (și face ce face DDP implicit)."""
    generator = torch.Generator().manual_seed(1000 + mediu.rang)  # date diferite pe ranguri
    x = torch.randn(configuratie.lot, configuratie.latime, generator=generator).to(mediu.dispozitiv)
    varianta = VariantaDDP(cheie=cheie, eticheta=eticheta, mod=mod, mediu=mediu, x=x)
    torch.manual_seed(0)
    model = ReteaBlocuri(configuratie.latime, configuratie.blocuri).to(mediu.dispozitiv)
    with varianta.context():  # python_reducer se alege la construirea lui DDP
        varianta.ddp = DDP(model, bucket_cap_mb=configuratie.galeata_mb)
    if mediu.backend == "gloo" and mod != "python_reducer":
        momente = varianta.momente

        def carlig(state, bucket):  # DDP cere exact numele acestea (state, bucket)
            momente["all_reduce"].append(time.perf_counter())
            viitor = dist.all_reduce(bucket.buffer(), async_op=True).get_future()
            return viitor.then(lambda v: v.value()[0].div_(dist.get_world_size()))

        varianta.ddp.register_comm_hook(None, carlig)
    if mod is None:
        varianta.pas_model = varianta.ddp
    else:
        # Un backend propriu fiecărei variante: Dynamo ține grafurile compilate pe codul lui
        # `DDP.forward`, comun tuturor instanțelor, iar gărzile nu privesc `optimize_ddp`; cu același
        # backend, a doua variantă ar refolosi grafurile primei. Un alt obiect-backend le desparte
        # (garda „BACKEND_MATCH”).
        compilator = torch._dynamo.lookup_backend(mediu.compilator)

        def backend_varianta(gm, exemple):
            return compilator(gm, exemple)

        varianta.pas_model = torch.compile(varianta.ddp, backend=backend_varianta)
    if mod == "python_reducer":
        grafuri_inapoi = varianta.grafuri_inapoi

        def inregistreaza(gm, exemple):
            grafuri_inapoi.append(gm)
            return torch._dynamo.lookup_backend(mediu.compilator)(gm, exemple)

        varianta.compilator_inapoi = torch.compile(backend=inregistreaza)
    varianta.optimizator = torch.optim.SGD(varianta.ddp.parameters(), lr=1e-3)
    return varianta


def _numar_capturi_inapoi() -> int:
    from torch._dynamo.utils import counters

    return int(counters["compiled_autograd"]["captures"])


def parte_pas(mediu: Mediu, configuratie: Configuratie) -> dict:
    """Pasul DDP în cele patru variante: compilarea (încălzirea), timpii în runde, grafurile și
    suprapunerea. Întoarce debitul pe rang al fiecărei variante (exemple/s), pentru scalare."""
    model = ReteaBlocuri(configuratie.latime, configuratie.blocuri)
    parametri = sum(p.numel() for p in model.parameters())
    octeti = octeti_pe_strat(model)
    galeti = grafuri_prezise(octeti, configuratie.galeata_mb)
    del model
    mediu.tipareste(f"\n1. PASUL DE ANTRENARE DDP (înainte, înapoi, SGD), {mediu.ranguri()}")
    mediu.tipareste(f"  modelul: ReteaBlocuri(latime={configuratie.latime}, blocuri={configuratie.blocuri}), "
                    f"{cifre.cu_substantiv(parametri, 'parametru', 'parametri')} ({cifre.format_octeti(sum(octeti))}); "
                    f"lotul: {cifre.cu_substantiv(configuratie.lot, 'exemplu', 'exemple')} pe rang; găleți de "
                    f"{cifre.format_numar(configuratie.galeata_mb)} MiB ({cifre.cu_substantiv(galeti, 'găleată', 'găleți')} "
                    "după regula lui DDPOptimizer)")
    mediu.inregistreaza("parametri_model", parametri, "parametri",
                        f"parametrii modelului ReteaBlocuri({configuratie.latime}, {configuratie.blocuri})")
    mediu.inregistreaza("lot_pe_rang", configuratie.lot, "exemple", "exemplele unui pas, pe fiecare rang")

    goleste_dynamo()
    variante: list[VariantaDDP] = []
    for cheie, eticheta, mod in VARIANTE_DDP:  # python_reducer ultimul: își schimbă setări globale la construire
        inainte = numar_grafuri_compilate()["grafuri"]
        capturi = _numar_capturi_inapoi()
        start = time.perf_counter()
        varianta = construieste_varianta(mediu, configuratie, cheie, eticheta, mod)
        for _ in range(configuratie.incalziri):
            varianta.fa_pas()
        mediu.sincronizeaza()
        dist.barrier()
        varianta.grafuri = numar_grafuri_compilate()["grafuri"] - inainte
        varianta.capturi_inapoi = _numar_capturi_inapoi() - capturi
        mediu.tipareste(f"  încălzirea „{eticheta}”: {cifre.format_timp(time.perf_counter() - start)} "
                        f"({cifre.cu_substantiv(configuratie.incalziri, 'pas', 'pași')}, cu compilarea)")
        variante.append(varianta)

    inainte = numar_grafuri_compilate()
    masuratori = cronometreaza(mediu, {v.cheie: v.fa_pas for v in variante},
                               runde=configuratie.runde, pe_runda=configuratie.pasi)
    recompilari = numar_grafuri_compilate() != inainte

    mediu.tipareste(f"\n  {cifre.cu_substantiv(configuratie.runde, 'rundă', 'runde')} × "
                    f"{cifre.cu_substantiv(configuratie.pasi, 'pas', 'pași')} pe variantă, intercalat; timpul unei runde e "
                    "al celui mai lent rang; pe pas: mediana rundelor (cea mai rapidă – cea mai lentă rundă)")
    mediu.tipareste(f"  {'varianta':46} {'grafuri':>7}  {'pe pas':>30}  {'debit pe rang':>16}  {'față de eager':>13}")
    pe_cpu = not mediu.pe_gpu
    debite = {}
    eager = masuratori["eager"]
    for v in variante:
        m = masuratori[v.cheie]
        debit = configuratie.lot / m.mediana_s
        debite[v.cheie] = debit
        grafuri = "—" if v.mod is None else str(v.grafuri)
        fata = "—" if v.mod is None else cifre.cu_unitate(raport_din(eager, m).mediana, "×")
        mediu.tipareste(f"  {v.eticheta:46} {grafuri:>7}  {descrie_timp(m):>30}  "
                        f"{cifre.format_numar(debit) + ' ex./s':>16}  {fata:>13}")
        mediu.inregistreaza(f"pas_{v.cheie}_ms", m, "ms", f"pasul de antrenare DDP, {v.eticheta}",
                            depinde_de_procesor=pe_cpu)
        mediu.inregistreaza(f"debit_pe_rang_{v.cheie}", debit, "exemple/s",
                            f"debitul pe rang al pasului DDP, {v.eticheta}",
                            interval=(configuratie.lot / m.maxim_runde_s, configuratie.lot / m.minim_runde_s),
                            depinde_de_procesor=pe_cpu)
        if v.mod is not None:
            mediu.inregistreaza(f"accelerare_{v.cheie}", raport_din(eager, m), "×",
                                f"pasul DDP {v.eticheta}, față de DDP eager", depinde_de_procesor=pe_cpu)
            mediu.inregistreaza(f"grafuri_{v.cheie}", v.grafuri, "grafuri",
                                f"grafurile compilate de varianta „{v.eticheta}”, găleți de "
                                f"{cifre.format_numar(configuratie.galeata_mb)} MiB")
    reducer = variante[-1]
    mediu.tipareste(f"  python_reducer: grafurile pasului înapoi capturate de autograd-ul compilat (incluse mai sus): "
                    f"{reducer.capturi_inapoi}")
    if recompilari:
        mediu.tipareste("  ATENȚIE: o variantă s-a recompilat în timpul cronometrării (contoarele lui Dynamo s-au "
                        "schimbat): timpii ei includ o compilare.")

    suprapunere(mediu, variante, configuratie.pasi_numarati)
    del variante
    _elibereaza(mediu)
    return debite


def suprapunere(mediu: Mediu, variante: list[VariantaDDP], pasi: int) -> None:
    """„k din n” pentru fiecare variantă, după `pasi` pași (se raportează ultimul): pe GPU-uri din
    urma profilerului, pe gloo din momente (cârligul de comunicare) sau, la python_reducer, din
    graful pasului înapoi."""
    rezultate = {}
    if mediu.pe_gpu:
        from torch.profiler import ProfilerActivity, profile

        metoda = ("din urma torch.profiler: kernel-urile NCCL AllReduce care rulează pe GPU în același timp cu un "
                  "kernel de calcul al pasului înapoi")
        for v in variante:
            dist.barrier()
            mediu.sincronizeaza()
            with profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA]) as profil:
                for _ in range(pasi):
                    v.fa_pas(profil=True)
                mediu.sincronizeaza()
            with tempfile.TemporaryDirectory() as dosar:
                cale = Path(dosar) / "urma.json"
                profil.export_chrome_trace(str(cale))
                evenimente = json.loads(cale.read_text(encoding="utf-8")).get("traceEvents", [])
            pe_pasi = suprapuse_din_urma(evenimente)
            rezultate[v.cheie] = pe_pasi[-1] if pe_pasi else (0, 0)
    else:
        metoda = ("pe gloo: all-reduce-urile pornite (cârligul de comunicare) înainte de sfârșitul calculului înapoi "
                  "(cârligele pe nodurile autograd); la python_reducer, cele cu calcul între ele și wait_tensor, în "
                  "graful pasului înapoi")
        for v in variante:
            for _ in range(pasi):
                v.fa_pas(numara=True)
            if v.mod == "python_reducer":
                rezultate[v.cheie] = suprapuse_in_graf(v.grafuri_inapoi[-1]) if v.grafuri_inapoi else (0, 0)
            else:
                rezultate[v.cheie] = v.suprapunere_gloo()
    # rangul 0 raportează, dar fiecare rang a numărat: luăm cel mai mic număr de suprapuneri
    tensor = torch.tensor([rezultate[v.cheie][0] for v in variante], dtype=torch.float64, device=mediu.dispozitiv)
    dist.all_reduce(tensor, op=dist.ReduceOp.MIN)
    mediu.tipareste(f"\n2. SUPRAPUNEREA ALL-REDUCE-URILOR CU PASUL ÎNAPOI ({metoda}; ultimul pas, cel mai mic număr "
                    "dintre ranguri)")
    for v, suprapuse in zip(variante, tensor.tolist()):
        suprapuse, total = int(suprapuse), rezultate[v.cheie][1]
        mediu.tipareste(f"  {v.eticheta:46} {suprapuse} din {total}")
        mediu.inregistreaza(f"suprapuse_{v.cheie}", suprapuse, "all-reduce",
                            f"all-reduce-uri suprapuse cu calculul pasului înapoi, {v.eticheta} (din {total})")
        mediu.inregistreaza(f"all_reduce_{v.cheie}", total, "all-reduce", f"all-reduce-urile unui pas, {v.eticheta}")


# ---------------------------------------------------------------------------------------------
# Partea 2: grafurile lui DDPOptimizer pe mărimea găleții
# ---------------------------------------------------------------------------------------------


def parte_galeti(mediu: Mediu, galeti_mb=GALETI_MB) -> None:
    latime, blocuri = MODEL_GALETI
    octeti = octeti_pe_strat(ReteaBlocuri(latime, blocuri))
    mediu.tipareste(f"\n3. GRAFURILE LUI DDPOptimizer PE MĂRIMEA GĂLEȚII: ReteaBlocuri({latime}, {blocuri}), straturi de "
                    f"{cifre.format_octeti(max(octeti))}, un pas înainte compilat pentru fiecare bucket_cap_mb")
    mediu.tipareste(f"  {'bucket_cap_mb':>13}  {'grafuri':>7}  {'prezise de regulă':>17}")
    for galeata in galeti_mb:
        goleste_dynamo()
        torch.manual_seed(0)
        model = ReteaBlocuri(latime, blocuri).to(mediu.dispozitiv)
        pas = torch.compile(DDP(model, bucket_cap_mb=galeata), backend=mediu.compilator)
        with torch._dynamo.config.patch(optimize_ddp=True):
            # DDPOptimizer împarte graful la compilarea pasului înainte (pasul înapoi al fiecărui
            # graf vine din același graf, prin AOTAutograd): un pas înainte ajunge ca să le numeri.
            pas(torch.randn(8, latime, device=mediu.dispozitiv)).pow(2).mean()
        grafuri = numar_grafuri_compilate()["grafuri"]
        prezise = grafuri_prezise(octeti, galeata)
        mediu.tipareste(f"  {cifre.format_numar(galeata):>13}  {grafuri:>7}  {prezise:>17}")
        mediu.inregistreaza(f"grafuri_galeata_{cifre.format_numar(galeata).replace(',', '_')}mb", grafuri, "grafuri",
                            f"grafurile lui DDPOptimizer pentru ReteaBlocuri({latime}, {blocuri}), bucket_cap_mb="
                            f"{cifre.format_numar(galeata)} (prezise de regulă: {prezise})")
        del pas, model
    goleste_dynamo()
    _elibereaza(mediu)


# ---------------------------------------------------------------------------------------------
# Partea 3: FSDP2 compilat bloc cu bloc, lângă DDP
# ---------------------------------------------------------------------------------------------


def _memorie_inainte(mediu: Mediu) -> int:
    if not mediu.pe_gpu:
        return 0
    _elibereaza(mediu)
    torch.cuda.reset_peak_memory_stats(mediu.dispozitiv)
    return torch.cuda.memory_allocated(mediu.dispozitiv)


def parte_fsdp(mediu: Mediu, configuratie: Configuratie) -> dict:
    """FSDP2 (`fully_shard` pe blocuri și pe rădăcină, blocurile compilate) și DDP compilat
    (DDPOptimizer), pe `ReteaBlocuri(..., intrare=True)`: timpii în runde, memoria (GPU) sau
    parametrii ținuți de rang (procesor), compilările și recompilările lui FSDP2."""
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard

    latime, blocuri = configuratie.latime, configuratie.blocuri
    mediu.tipareste(f"\n4. FSDP2 FAȚĂ DE DDP: ReteaBlocuri({latime}, {blocuri}, intrare=True), {mediu.ranguri()}")
    generator = torch.Generator().manual_seed(2000 + mediu.rang)
    x = torch.randn(configuratie.lot, latime, generator=generator).to(mediu.dispozitiv)
    goleste_dynamo()

    # DDP compilat cu DDPOptimizer, același model
    baza = _memorie_inainte(mediu)
    torch.manual_seed(0)
    model_ddp = ReteaBlocuri(latime, blocuri, intrare=True).to(mediu.dispozitiv)
    ddp = DDP(model_ddp, bucket_cap_mb=configuratie.galeata_mb)
    pas_ddp = torch.compile(ddp, backend=mediu.compilator)
    optimizator_ddp = torch.optim.SGD(ddp.parameters(), lr=1e-3)

    def fa_pas_ddp():
        optimizator_ddp.zero_grad(set_to_none=True)
        pas_ddp(x).pow(2).mean().backward()
        optimizator_ddp.step()

    for _ in range(configuratie.incalziri):
        fa_pas_ddp()
    mediu.sincronizeaza()
    memorie = {"ddp": torch.cuda.max_memory_allocated(mediu.dispozitiv) - baza if mediu.pe_gpu else None}
    parametri_rang = {"ddp": sum(p.numel() * p.element_size() for p in model_ddp.parameters())}

    # FSDP2: fiecare bloc compilat și fragmentat, apoi rădăcina
    compilari = {"numar": 0}

    def numarator(gm, exemple):
        compilari["numar"] += 1
        return torch._dynamo.lookup_backend(mediu.compilator)(gm, exemple)

    baza = _memorie_inainte(mediu)
    retea = init_device_mesh(mediu.dispozitiv.type, (mediu.lume,))
    torch.manual_seed(0)
    model_fsdp = ReteaBlocuri(latime, blocuri, intrare=True).to(mediu.dispozitiv)
    for bloc in model_fsdp.blocuri:
        bloc.compile(backend=numarator)
        fully_shard(bloc, mesh=retea)
    fully_shard(model_fsdp, mesh=retea)
    optimizator_fsdp = torch.optim.SGD(model_fsdp.parameters(), lr=1e-3)

    def fa_pas_fsdp():
        optimizator_fsdp.zero_grad(set_to_none=True)
        model_fsdp(x).pow(2).mean().backward()
        optimizator_fsdp.step()

    start = time.perf_counter()
    for _ in range(configuratie.incalziri):
        fa_pas_fsdp()
    mediu.sincronizeaza()
    incalzire_s = time.perf_counter() - start
    memorie["fsdp2"] = torch.cuda.max_memory_allocated(mediu.dispozitiv) - baza if mediu.pe_gpu else None
    parametri_rang["fsdp2"] = sum(p.to_local().numel() * p.element_size() for p in model_fsdp.parameters())
    compilari_incalzire, motive = compilari["numar"], motive_recompilare()
    greutate = model_fsdp.blocuri[0].liniar.weight
    dist.barrier()

    masuratori = cronometreaza(mediu, {"ddp": fa_pas_ddp, "fsdp2": fa_pas_fsdp},
                               runde=configuratie.runde, pe_runda=configuratie.pasi)
    if compilari["numar"] != compilari_incalzire:
        mediu.tipareste("  ATENȚIE: FSDP2 s-a recompilat în timpul cronometrării: timpii lui includ o compilare.")
    pe_cpu = not mediu.pe_gpu
    etichete = {"ddp": "DDP compilat (DDPOptimizer)", "fsdp2": "FSDP2, blocurile compilate"}
    mediu.tipareste(f"  o greutate a primului bloc: întreagă {tuple(greutate.shape)}, fragmentul rangului "
                    f"{tuple(greutate.to_local().shape)}, {getattr(greutate, 'placements', '')}")
    mediu.tipareste(f"  FSDP2: compilările blocurilor la încălzire: {compilari_incalzire} ({cifre.format_timp(incalzire_s)}"
                    ", cu pașii de încălzire)" + (f"; motivele recompilărilor: {'; '.join(motive)}" if motive else
                                                 "; nicio recompilare"))
    coloana = "memoria de vârf pe rang" if mediu.pe_gpu else "parametrii ținuți de rang"
    mediu.tipareste(f"  {'varianta':30} {'pe pas':>30}  {'debit pe rang':>16}  {coloana:>24}")
    debite = {}
    for cheie in ("ddp", "fsdp2"):
        m = masuratori[cheie]
        debite[f"fsdp_{cheie}"] = configuratie.lot / m.mediana_s
        valoare_memorie = memorie[cheie] if mediu.pe_gpu else parametri_rang[cheie]
        mediu.tipareste(f"  {etichete[cheie]:30} {descrie_timp(m):>30}  "
                        f"{cifre.format_numar(configuratie.lot / m.mediana_s) + ' ex./s':>16}  "
                        f"{cifre.format_octeti(valoare_memorie):>24}")
        mediu.inregistreaza(f"pas_fsdp_{cheie}_ms", m, "ms", f"pasul de antrenare, {etichete[cheie]}, "
                            f"ReteaBlocuri({latime}, {blocuri}, intrare=True)", depinde_de_procesor=pe_cpu)
        mediu.inregistreaza(f"debit_pe_rang_fsdp_{cheie}", configuratie.lot / m.mediana_s, "exemple/s",
                            f"debitul pe rang, {etichete[cheie]}", depinde_de_procesor=pe_cpu)
        if mediu.pe_gpu:
            mediu.inregistreaza(f"memorie_varf_{cheie}_mib", memorie[cheie] / _MIB, "MiB",
                                f"memoria de vârf a rangului (peste cea de dinainte de model), {etichete[cheie]}")
        else:
            mediu.inregistreaza(f"parametri_rang_{cheie}_mib", parametri_rang[cheie] / _MIB, "MiB",
                                f"octeții parametrilor ținuți de rang, {etichete[cheie]} (pe procesor, în locul "
                                "memoriei de vârf)")
    mediu.inregistreaza("compilari_fsdp2", compilari_incalzire, "grafuri",
                        "compilările blocurilor lui FSDP2 (bloc.compile, cu strat de intrare)")
    raport = raport_din(masuratori["ddp"], masuratori["fsdp2"])
    mediu.tipareste(f"  FSDP2 față de DDP: {cifre.cu_unitate(raport.mediana, '×')} (peste 1: FSDP2 mai rapid)")
    if mediu.pe_gpu:
        mediu.tipareste("  memoria de vârf: creșterea lui torch.cuda.max_memory_allocated peste memoria de dinainte de "
                        "construirea modelului (parametri, gradienți, găleți, activări)")
    else:
        fragment = (f"fragmentul rangului, cam 1/{mediu.lume} din model" if mediu.lume > 1
                    else "tot modelul, căci un singur rang n-are cu cine împărți")
        mediu.tipareste("  pe procesor nu măsor memoria de vârf: coloana arată octeții parametrilor ținuți de rang "
                        f"(DDP: tot modelul; FSDP2: {fragment})")
    goleste_dynamo()
    return debite  # modelele se eliberează la ieșire (main cheamă apoi `_elibereaza`)


# ---------------------------------------------------------------------------------------------
# Scalarea față de o rulare cu un rang
# ---------------------------------------------------------------------------------------------


#: Eticheta fiecărui debit din tabelul scalării.
ETICHETE_DEBIT = {**{cheie: eticheta for cheie, eticheta, _ in VARIANTE_DDP},
                  "fsdp_ddp": "DDP compilat, cu strat de intrare (partea 4)",
                  "fsdp_fsdp2": "FSDP2, blocurile compilate (partea 4)"}


def citeste_cifrele(cale: Path) -> dict[str, dict]:
    """Cifrele unui fișier JSON Lines scris de `cifre.inregistreaza` (la chei repetate, ultima)."""
    cifrele = {}
    for rand in cale.read_text(encoding="utf-8").splitlines():
        if rand.strip():
            cifra = json.loads(rand)
            cifrele[cifra["cheie"]] = cifra
    return cifrele


def scalare(mediu: Mediu, configuratie: Configuratie, debite: dict, cale: Path) -> None:
    mediu.tipareste(f"\n5. SCALAREA: {mediu.ranguri()} față de 1 rang ({cale.name})")
    if mediu.lume == 1:
        mediu.tipareste("  rularea aceasta are un singur rang: nu are cu ce se compara")
        return
    referinta = citeste_cifrele(cale)
    parametri = sum(p.numel() for p in ReteaBlocuri(configuratie.latime, configuratie.blocuri).parameters())
    ref_parametri = referinta.get(f"{PREFIX}parametri_model_n1", {}).get("valoare")
    ref_lot = referinta.get(f"{PREFIX}lot_pe_rang_n1", {}).get("valoare")
    if ref_parametri != parametri or ref_lot != configuratie.lot:
        mediu.tipareste(f"  referința e altă configurație (parametri {ref_parametri}, lot {ref_lot}; aici {parametri}, "
                        f"{configuratie.lot}): rulează-le pe amândouă cu aceleași opțiuni (de exemplu amândouă cu --rapid)")
        return
    mediu.tipareste(f"  {'varianta':46} {'1 rang':>14}  {f'{mediu.lume} ranguri, pe rang':>20}  {'din scalarea liniară':>20}")
    for cheie, debit in debite.items():
        cifra = referinta.get(f"{PREFIX}debit_pe_rang_{cheie}_n1")
        if cifra is None:
            continue
        debit_1 = cifra["valoare"]
        debit_n = mediu.lume * debit  # debitul tuturor rangurilor
        parte = debit_n / (mediu.lume * debit_1)
        mediu.tipareste(f"  {ETICHETE_DEBIT.get(cheie, cheie):46} {cifre.format_numar(debit_1) + ' ex./s':>14}  "
                        f"{cifre.format_numar(debit) + ' ex./s':>20}  {cifre.format_procent(parte):>20}")
        mediu.inregistreaza(f"scalare_{cheie}", parte * 100, "%",
                            f"partea din scalarea liniară, debit_N / (N · debit_1), varianta {cheie}",
                            depinde_de_procesor=not mediu.pe_gpu)
    mediu.tipareste("  100% înseamnă că fiecare rang păstrează debitul unui rang singur (comunicarea e ascunsă sau ieftină)")


# ---------------------------------------------------------------------------------------------


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rapid", action="store_true", help="modelul mic și puține runde (și pe GPU)")
    parser.add_argument("--referinta-1", type=Path, default=None,
                        help="fișierul de cifre (JSON Lines) al unei rulări cu un rang, pentru scalare")
    parser.add_argument("--parti", default=",".join(PARTI), help=f"părțile de rulat, despărțite prin virgulă: {', '.join(PARTI)}")
    parser.add_argument("--runde", type=int, default=None, help="numărul de runde (implicit, al configurației)")
    parser.add_argument("--pasi", type=int, default=None, help="pașii măsurați pe rundă (implicit, ai configurației)")
    parser.add_argument("--limita-s", type=float, default=600.0,
                        help="limita unei operații colective, în secunde (un rang blocat oprește rularea)")
    argumente = parser.parse_args(argv)
    parti = [p.strip() for p in argumente.parti.split(",") if p.strip()]
    necunoscute = [p for p in parti if p not in PARTI]
    if necunoscute:
        raise SystemExit(f"Părți necunoscute: {', '.join(necunoscute)}. Părțile: {', '.join(PARTI)}.")

    start = time.perf_counter()
    mediu = porneste(argumente.limita_s)
    try:
        if mediu.pe_gpu:
            torch.set_float32_matmul_precision("high")  # TF32 la înmulțiri, ca în antrenarea obișnuită
        configuratie = configuratie_pentru(mediu.pe_gpu, argumente.rapid)
        if argumente.runde:
            configuratie = replace(configuratie, runde=argumente.runde)
        if argumente.pasi:
            configuratie = replace(configuratie, pasi=argumente.pasi)
        mediu.tipareste(f"torch {torch.__version__}; {mediu.ranguri()}, {mediu.motiv}; compilatorul din ranguri: "
                        f"{mediu.compilator}")
        if not mediu.pe_gpu:
            mediu.tipareste("Pe procesor, timpii sunt ai unui procesor împărțit între ranguri: doar numerele (grafuri, "
                            "all-reduce-uri, suprapuneri, octeți) te învață ceva.")
        debite = {}
        if "pas" in parti:
            debite.update(parte_pas(mediu, configuratie))
        if "galeti" in parti:
            parte_galeti(mediu)
        if "fsdp" in parti:
            debite.update(parte_fsdp(mediu, configuratie))
            _elibereaza(mediu)
        if argumente.referinta_1 is not None:
            scalare(mediu, configuratie, debite, argumente.referinta_1)
        mediu.tipareste(f"\nGata în {cifre.format_timp(time.perf_counter() - start)}.")
    finally:
        if dist.is_initialized():
            dist.destroy_process_group()
    return 0


if __name__ == "__main__":
    sys.exit(main())
