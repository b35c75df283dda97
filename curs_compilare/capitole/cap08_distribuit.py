"""Uneltele capitolului 08: DDP și FSDP2 sub `torch.compile`, măsurate în procese adevărate.

Fiecare experiment rulează în ranguri pornite de `cap08_ranguri.ruleaza_pe_ranguri` (gloo pe
procesor; NCCL când mașina are câte un GPU pentru fiecare rang) și întoarce în notebook numere:
câte grafuri a compilat Dynamo, câte all-reduce-uri au pornit înainte să se termine pasul
înapoi (*backward*), ce parametri ține fiecare rang, câte recompilări au fost și de ce.

- `ReteaBlocuri` — modelul capitolului: blocuri liniare cu GELU și conexiune reziduală, fără
  strat de intrare (primul bloc primește chiar datele), și un cap de ieșire;
- `masoara_ddp` — DDP în modul eager și compilat, cu fiecare valoare a lui
  `torch._dynamo.config.optimize_ddp` și cu găleți de mărimi diferite: grafurile, all-reduce-urile
  și momentul fiecăruia față de sfârșitul pasului înapoi, plus verificarea că rangurile au rămas
  identice;
- `grafuri_sub_ddp` — unde pui compilarea față de `DDP(...)`: câte grafuri capturează Dynamo și
  în câte grafuri le taie DDPOptimizer, pentru un `nn.Sequential` și pentru un modul scris de tine
  (compilarea care nu face nimic, fără niciun avertisment);
- `reductor_python` — `optimize_ddp="python_reducer"` cu autograd-ul compilat: all-reduce-urile
  devin operații în graful pasului înapoi (și ce spune PyTorch când încerci autograd-ul compilat cu
  reductorul C++ al lui DDP);
- `masoara_fsdp` — FSDP2 (`fully_shard`) pe o rețea de dispozitive, compilat bloc cu bloc: ce
  parametri ține fiecare rang, câte compilări și recompilări, cu ce motiv (`masoara_fsdp_variante`:
  mai multe variante într-o singură pornire a rangurilor);
- `intr_o_singura_pornire` — mai multe dintre experimentele de mai sus într-o singură pornire a
  rangurilor (procesele noi, importurile și prima compilare se plătesc o singură dată);
- `grafuri_prezise` — câte grafuri face DDPOptimizer dintr-o listă de mărimi de straturi (regula
  din `torch/_dynamo/backends/distributed.py`, verificată în teste față de măsurătoare);
- graficele (`grafic_grafuri_pe_galeata`, `grafic_suprapunere`) și exploratorul găleților.

Pe procesor, rangurile folosesc backend-ul de compilare „aot_eager”: aceleași grafuri,
aceleași împărțiri și aceleași gărzi ca Inductor, fără generarea de cod C++ (care ar dura zeci
de secunde pe două nuclee). Pe mai multe GPU-uri, cu NCCL, compilează Inductor.
"""

from __future__ import annotations

import sys
import time
from dataclasses import dataclass, field

import torch
import torch.nn as nn

from .. import cifre
from ..inspectie import goleste_dynamo, motive_recompilare
from .cap08_ranguri import alege_backend, rangurile_deja_pornite, ruleaza_pe_ranguri

__all__ = [
    "Bloc",
    "ReteaBlocuri",
    "MasuratoareDDP",
    "MOD_EAGER",
    "PRIMA_GALEATA_MB",
    "octeti_pe_strat",
    "grafuri_prezise",
    "masoara_ddp",
    "grafuri_sub_ddp",
    "reductor_python",
    "masoara_fsdp",
    "masoara_fsdp_variante",
    "intr_o_singura_pornire",
    "numar_grafuri_compilate",
    "arata_suprapunerea",
    "arata_plasari",
    "arata_reductorul",
    "explica_garda",
    "grafic_grafuri_pe_galeata",
    "grafic_suprapunere",
    "exploreaza_galetile",
    "backend_compilare",
    "descrie_masina",
    "arata_ddp",
    "VARIANTE_PLASARE",
    "marcheaza_sfarsitul_calculului",
]

#: Numele modului fără compilare în rezultatele lui `masoara_ddp`.
MOD_EAGER = "eager"
#: Prima găleată a lui DDP (și a lui DDPOptimizer) e mai mică, ca primul all-reduce să pornească
#: devreme: `torch.distributed._DEFAULT_FIRST_BUCKET_BYTES`, 1 MiB.
PRIMA_GALEATA_MB = 1.0
_MIB = 1024 * 1024


# ---------------------------------------------------------------------------------------------
# Modelul capitolului
# ---------------------------------------------------------------------------------------------


class Bloc(nn.Module):
    """Un bloc: `x + gelu(liniar(x))`. Toate blocurile au același cod (`Bloc.forward`), deci
    Dynamo le compilează o singură dată și le păzește pe toate cu aceleași gărzi."""

    def __init__(self, latime: int):
        super().__init__()
        self.liniar = nn.Linear(latime, latime)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        return x + torch.nn.functional.gelu(self.liniar(x))


class ReteaBlocuri(nn.Module):
    """Modelul capitolului: `blocuri` blocuri `Bloc(latime)` unul după altul, apoi un cap de
    ieșire `nn.Linear(latime, 1)`. Fără strat de intrare: primul bloc primește chiar datele (un
    tensor fără `requires_grad`), celelalte primesc ieșirea unui bloc (cu `requires_grad`).
    `intrare=True` pune în față un `nn.Linear(latime, latime)`, ca stratul de înglobare al unui
    transformer: atunci și primul bloc primește un tensor cu `requires_grad`."""

    def __init__(self, latime: int = 256, blocuri: int = 8, intrare: bool = False):
        super().__init__()
        self.intrare = nn.Linear(latime, latime) if intrare else None
        self.blocuri = nn.ModuleList(Bloc(latime) for _ in range(blocuri))
        self.cap = nn.Linear(latime, 1)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        if self.intrare is not None:
            x = self.intrare(x)
        for bloc in self.blocuri:
            x = bloc(x)
        return self.cap(x)


def octeti_pe_strat(model: nn.Module) -> list[int]:
    """Octeții parametrilor fiecărui strat cu parametri (un `nn.Linear`, de exemplu), în ordinea
    în care îi folosește pasul înainte (pentru `ReteaBlocuri`, ordinea modulelor)."""
    return [sum(p.numel() * p.element_size() for p in m.parameters(recurse=False))
            for m in model.modules() if any(True for _ in m.parameters(recurse=False))]


def grafuri_prezise(octeti: list[int], galeata_mb: float, prima_galeata_mb: float = PRIMA_GALEATA_MB) -> int:
    """Câte grafuri face DDPOptimizer dintr-un lanț de straturi cu `octeti` (în ordinea pasului
    înainte), pentru găleți de `galeata_mb` MiB. Regula lui (`torch/_dynamo/backends/distributed.py`):
    parcurge straturile de la ultimul la primul (ordinea în care sunt gata gradienții) și adună
    octeții într-o găleată; când găleata are cel puțin limita (prima: `prima_galeata_mb`, celelalte:
    `galeata_mb`), următorul strat începe o găleată nouă, deci un graf nou."""
    if galeata_mb < prima_galeata_mb:
        raise ValueError(f"DDPOptimizer cere găleți de cel puțin {prima_galeata_mb:g} MiB (mărimea primei găleți).")
    galeti = [0]
    for marime in reversed(list(octeti)):
        limita = (prima_galeata_mb if len(galeti) == 1 else galeata_mb) * _MIB
        if galeti[-1] >= limita:
            galeti.append(0)
        galeti[-1] += int(marime)
    if len(galeti) > 1 and galeti[-1] == 0:
        galeti.pop()
    return len(galeti)


def backend_compilare(backend_distribuit: str) -> str:
    """Backend-ul compilatorului în ranguri: Inductor pe GPU-uri (NCCL), „aot_eager” pe procesor
    (vezi descrierea modulului)."""
    return "inductor" if backend_distribuit == "nccl" else "aot_eager"


def numar_grafuri_compilate() -> dict:
    """Contoarele lui Dynamo de după o rulare, cu cele două numărători ale grafurilor:
    `grafuri_dynamo` (`counters["stats"]["unique_graphs"]`: grafurile pe care Dynamo le-a capturat
    din codul Python, câte unul pentru fiecare bucată de cod fără întreruperi) și `grafuri`
    (`counters["aot_autograd"]["total"]`: grafurile care au trecut prin AOTAutograd spre backend).
    Fără DDPOptimizer sunt aceleași; cu el, fiecare graf al lui Dynamo e tăiat în câte un graf pe
    găleată, iar fiecare bucată trece separat prin AOTAutograd. Plus `operatii` (operațiile
    capturate de Dynamo) și `intreruperi`."""
    from torch._dynamo.utils import counters

    return {
        "grafuri_dynamo": int(counters["stats"]["unique_graphs"]),
        "grafuri": int(counters["aot_autograd"]["total"]),
        "operatii": int(counters["stats"]["calls_captured"]),
        "intreruperi": int(sum(counters["graph_break"].values())),
    }


def _liniste_in_rang() -> None:
    """În ranguri, jurnalele lui Dynamo doar pentru erori: avertismentul despre `record_function`
    din `DDP.forward` („Profiler record function … will be ignored”) n-are legătură cu lecția, iar
    întreruperile și recompilările se numără din contoare. Tot aici tace și avertismentul lui Dynamo
    la atingerea limitei de recompilări („hit config.recompile_limit”), pe care în afara rangurilor
    îl vezi (capitolul o spune la exercițiul 3)."""
    import logging

    torch._logging.set_logs(dynamo=logging.ERROR)


def _dispozitivul_rangului():
    import torch.distributed as dist

    if dist.get_backend() == "nccl":
        return torch.device("cuda", torch.cuda.current_device())
    return torch.device("cpu")


# ---------------------------------------------------------------------------------------------
# DDP: grafurile și suprapunerea comunicării cu pasul înapoi
# ---------------------------------------------------------------------------------------------


@dataclass
class MasuratoareDDP:
    """O configurație DDP măsurată în ranguri: `mod` („eager”, True, False sau „python_reducer”),
    `galeata_mb`, grafurile (`grafuri`: prin AOTAutograd; `grafuri_dynamo`: capturate de Dynamo,
    vezi `numar_grafuri_compilate`), all-reduce-urile unui pas (`all_reduce`) și câte dintre ele au
    pornit înainte ca pasul înapoi să-și termine calculul (`suprapuse`), pentru fiecare pas măsurat;
    `momente_ms` (ultimul pas, în milisecunde de la apelul lui `backward()`): pornirea fiecărui
    all-reduce, sfârșitul calculului înapoi și întoarcerea din `backward()`; `straturi_all_reduce`
    (ultimul pas): pentru fiecare all-reduce, în ordinea pornirii, straturile ai căror gradienți
    i-a dus (numele modulelor, ca `blocuri.0.liniar`); `ranguri_identice`: parametrii rangurilor sunt
    egali bit cu bit după antrenare."""

    mod: object
    galeata_mb: float
    grafuri: int = 0
    grafuri_dynamo: int = 0
    all_reduce: list[int] = field(default_factory=list)
    suprapuse: list[int] = field(default_factory=list)
    momente_ms: dict = field(default_factory=dict)
    straturi_all_reduce: list[list[str]] = field(default_factory=list)
    ranguri_identice: bool = True
    pierderi: list[float] = field(default_factory=list)
    eroare: str | None = None

    @property
    def nume(self) -> str:
        if self.mod == MOD_EAGER:
            return "eager"
        return f"compilat, optimize_ddp={self.mod!r}"

    def suprapunere(self) -> str:
        """„8 din 9” (ultimul pas măsurat)."""
        return f"{self.suprapuse[-1]} din {self.all_reduce[-1]}"

    def galeti_dupa_calcul(self) -> list[list[str]]:
        """Pentru fiecare all-reduce pornit după sfârșitul calculului înapoi (ultimul pas), straturile
        ai căror gradienți i-a dus."""
        momente = self.momente_ms
        sfarsit = momente.get("sfarsit_calcul")
        if sfarsit is None:
            return []
        return [straturi for t, straturi in zip(momente.get("all_reduce", []), self.straturi_all_reduce) if t >= sfarsit]

    def primul_strat(self) -> str | None:
        """Primul strat cu parametri al modelului, în ordinea pasului înainte (dintre cele ai căror
        gradienți au trecut prin all-reduce)."""
        straturi = {s for galeata in self.straturi_all_reduce for s in galeata}
        return min(straturi, key=_cheie_strat) if straturi else None


def _cheie_strat(nume: str):
    """Ordinea pasului înainte pentru numele straturilor lui `ReteaBlocuri`: intrarea, blocurile
    (după număr), capul."""
    if nume.startswith("intrare"):
        return (0, 0)
    if nume.startswith("blocuri."):
        return (1, int(nume.split(".")[1]))
    return (2, 0)


def _straturile_parametrilor(model: nn.Module) -> dict[int, str]:
    """`id(parametru)` → numele stratului lui (`blocuri.0.liniar`, `cap`)."""
    return {id(p): nume for nume, modul in model.named_modules() for p in modul.parameters(recurse=False)}


def marcheaza_sfarsitul_calculului(radacina, momente: dict) -> None:
    """Pune un cârlig pe fiecare nod de calcul al grafului autograd de sub `radacina` (toate, în
    afară de `AccumulateGrad`, care doar adună gradientul gata calculat în `.grad`): după ce
    rulează un nod, `momente["sfarsit_calcul"]` devine cel mai târziu moment de până atunci.
    La sfârșitul lui `backward()`, e momentul în care s-a terminat calculul pasului înapoi: un
    nod compilat (`CompiledFunctionBackward`, câte unul pe graf) sau o operație eager."""
    def carlig(*_):
        momente["sfarsit_calcul"] = time.perf_counter()

    vazute, stiva = set(), [radacina]
    while stiva:
        nod = stiva.pop()
        if nod is None or nod in vazute:
            continue
        vazute.add(nod)
        if type(nod).__name__ != "AccumulateGrad":
            nod.register_hook(carlig)
        stiva.extend(urmator for urmator, _ in nod.next_functions)


def _experiment_ddp(configuratii, latime, blocuri, lot, pasi, backend):
    """Corpul unui rang pentru `masoara_ddp` (rulează în fiecare rang)."""
    _liniste_in_rang()
    import torch.distributed as dist
    from torch.nn.parallel import DistributedDataParallel as DDP

    dispozitiv = _dispozitivul_rangului()
    rezultate = []
    for mod, galeata_mb in configuratii:
        goleste_dynamo()
        torch.manual_seed(0)  # aceleași greutăți inițiale în toate rangurile
        model = ReteaBlocuri(latime, blocuri).to(dispozitiv)
        ddp = DDP(model, bucket_cap_mb=galeata_mb)
        if mod is True and galeata_mb < PRIMA_GALEATA_MB:
            # DDPOptimizer refuză o găleată mai mică decât prima; eroarea apare la prima compilare,
            # deci e prinsă aici, cu o compilare de probă, fără ca rangurile să rămână în dezacord.
            try:
                with torch._dynamo.config.patch(optimize_ddp=True):
                    torch.compile(ddp, backend=backend)(torch.randn(2, latime, device=dispozitiv))
            except Exception as eroare:  # noqa: BLE001
                interioara = getattr(eroare, "inner_exception", None) or eroare
                rezultate.append({"mod": mod, "galeata_mb": galeata_mb, "eroare": f"{type(interioara).__name__}: {interioara}"})
                continue
        momente = {"all_reduce": [], "straturi": [], "sfarsit_calcul": None}
        straturi = _straturile_parametrilor(model)

        # Un cârlig de comunicare (comm hook): DDP îl cheamă când o găleată e gata, ca să-i
        # pornească all-reduce-ul. Cârligul notează momentul și straturile găleții, apoi face
        # exact ce face DDP implicit.
        def carlig(state, bucket):
            momente["all_reduce"].append(time.perf_counter())
            momente["straturi"].append(sorted({straturi.get(id(p), "?") for p in bucket.parameters()}, key=_cheie_strat))
            viitor = dist.all_reduce(bucket.buffer(), async_op=True).get_future()
            return viitor.then(lambda v: v.value()[0].div_(dist.get_world_size()))

        ddp.register_comm_hook(None, carlig)
        if mod == MOD_EAGER:
            pas = ddp
        else:
            pas = torch.compile(ddp, backend=backend)
        optimizator = torch.optim.SGD(ddp.parameters(), lr=0.01)
        generator = torch.Generator().manual_seed(1000 + dist.get_rank())  # date diferite pe ranguri
        all_reduce, suprapuse, pierderi, ultimele, straturi_all_reduce = [], [], [], {}, []
        optiune = {} if mod == MOD_EAGER else {"optimize_ddp": mod}
        with torch._dynamo.config.patch(**optiune):
            for indice in range(pasi + 1):  # primul pas: încălzirea (și, pentru DDP, reconstruirea găleților)
                x = torch.randn(lot, latime, generator=generator).to(dispozitiv)
                momente["all_reduce"].clear()
                momente["straturi"].clear()
                momente["sfarsit_calcul"] = None
                optimizator.zero_grad(set_to_none=True)
                pierdere = pas(x).pow(2).mean()
                marcheaza_sfarsitul_calculului(pierdere.grad_fn, momente)
                inceput = time.perf_counter()
                pierdere.backward()
                intoarcere = time.perf_counter()
                optimizator.step()
                if indice == 0:
                    continue
                sfarsit = momente["sfarsit_calcul"]
                all_reduce.append(len(momente["all_reduce"]))
                suprapuse.append(sum(t < sfarsit for t in momente["all_reduce"]))
                pierderi.append(float(pierdere.detach()))
                ultimele = {
                    "all_reduce": [(t - inceput) * 1e3 for t in momente["all_reduce"]],
                    "sfarsit_calcul": (sfarsit - inceput) * 1e3,
                    "intoarcere": (intoarcere - inceput) * 1e3,
                }
                straturi_all_reduce = [list(s) for s in momente["straturi"]]
        contoare = numar_grafuri_compilate()
        parametri = torch.cat([p.detach().flatten() for p in ddp.parameters()]).cpu()
        rezultate.append({
            "mod": mod, "galeata_mb": galeata_mb, "grafuri": contoare["grafuri"],
            "grafuri_dynamo": contoare["grafuri_dynamo"], "all_reduce": all_reduce, "suprapuse": suprapuse,
            "momente_ms": ultimele, "straturi_all_reduce": straturi_all_reduce, "pierderi": pierderi,
            "parametri": parametri,
        })
        del pas, ddp, model
    goleste_dynamo()
    return rezultate


def masoara_ddp(configuratii, *, latime: int = 512, blocuri: int = 8, lot: int = 32, pasi: int = 3,
                ranguri: int = 2, limita_s: float = 300.0) -> list[MasuratoareDDP]:
    """Măsoară fiecare configurație `(mod, galeata_mb)` în `ranguri` procese (toate într-o
    singură pornire): `mod` e `MOD_EAGER` (DDP fără compilare), True (DDPOptimizer, implicit),
    False (un singur graf) sau „python_reducer”. Modelul e `ReteaBlocuri(latime, blocuri)`,
    compilat cu `torch.compile(DDP(model))`; fiecare configurație face un pas de încălzire și
    `pasi` pași măsurați, cu date diferite pe fiecare rang. O configurație cu DDPOptimizer și o
    găleată mai mică decât prima (1 MiB) nu rulează: întoarce eroarea lui DDPOptimizer în `eroare`."""
    backend = alege_backend(ranguri)
    configuratii = [(mod, float(galeata)) for mod, galeata in configuratii]
    pe_ranguri = ruleaza_pe_ranguri(_experiment_ddp, configuratii, latime, blocuri, lot, pasi,
                                    backend_compilare(backend), ranguri=ranguri, limita_s=limita_s)
    masuratori = []
    for indice, rezultat in enumerate(pe_ranguri[0]):
        if "eroare" in rezultat:
            masuratori.append(MasuratoareDDP(mod=rezultat["mod"], galeata_mb=rezultat["galeata_mb"], eroare=rezultat["eroare"]))
            continue
        identice = all(torch.equal(rezultat["parametri"], alt[indice]["parametri"]) for alt in pe_ranguri[1:])
        masuratori.append(MasuratoareDDP(
            mod=rezultat["mod"], galeata_mb=rezultat["galeata_mb"], grafuri=rezultat["grafuri"],
            grafuri_dynamo=rezultat["grafuri_dynamo"], all_reduce=rezultat["all_reduce"],
            suprapuse=rezultat["suprapuse"], momente_ms=rezultat["momente_ms"],
            straturi_all_reduce=rezultat["straturi_all_reduce"], ranguri_identice=identice,
            pierderi=rezultat["pierderi"],
        ))
    return masuratori


def descrie_masina(ranguri: int = 2) -> str:
    """O propoziție despre drumul pe care îl iau rangurile capitolului pe mașina aceasta."""
    backend = alege_backend(ranguri)
    gpu = torch.cuda.device_count() if torch.cuda.is_available() else 0
    if backend == "nccl":
        return (f"Mașina are {gpu} GPU-uri: cele {ranguri} ranguri folosesc NCCL, câte un GPU fiecare, iar "
                "compilarea din ranguri folosește Inductor.")
    motiv = ("n-are niciun GPU" if gpu == 0 else
             "are un singur GPU, iar NCCL cere câte un GPU pe rang" if gpu == 1 else f"are doar {gpu} GPU-uri pentru {ranguri} ranguri")
    return (f"Mașina {motiv}: cele {ranguri} ranguri rulează pe procesor, cu gloo. Ce numeri (grafuri, "
            "all-reduce-uri, ordinea lor, recompilări) e același; timpii sunt ai unui procesor împărțit între "
            "ranguri. Compilarea din ranguri folosește backend-ul „aot_eager”: aceleași grafuri, fără cod C++ generat.")


def explica_refuzul(eroare: str, galeata_mb: float) -> str:
    """Propoziția în română pentru o configurație pe care compilarea a refuzat-o, urmată de
    mesajul lui PyTorch, scurt. Refuzul cunoscut: DDPOptimizer nu primește o găleată mai mică
    decât prima (`torch/_dynamo/backends/distributed.py`)."""
    tip, _, mesaj = eroare.partition(": ")
    mesaj = (mesaj or eroare).strip().splitlines()[0] if (mesaj or eroare).strip() else ""
    if "First bucket" in eroare:
        ce = (f"DDPOptimizer a refuzat găleata de {cifre.format_numar(galeata_mb)} MiB: prima lui găleată are "
              f"mereu {cifre.format_numar(PRIMA_GALEATA_MB)} MiB, ca primul all-reduce să pornească devreme, iar "
              "celelalte nu au voie să fie mai mici decât ea.")
    else:
        ce = f"Compilarea a refuzat configurația cu găleata de {cifre.format_numar(galeata_mb)} MiB, la prima compilare."
    return f"{ce} Mesajul lui PyTorch ({tip}): „{mesaj[:160]}”."


def arata_ddp(masuratori: list[MasuratoareDDP]) -> None:
    """Tabelul configurațiilor DDP măsurate (cele două numărători ale grafurilor, all-reduce-uri pe
    pas, câte au pornit în timpul calculului înapoi, rangurile identice), sub el ce s-a refuzat și
    de ce, și cifrele lor, notate pentru raportul validării."""
    print(f"{'':<30} {'':>8} {'grafuri':^21}")
    print(f"{'configurație':<30} {'găleată':>8} {'Dynamo':>8} {'AOTAutograd':>12} {'all-reduce':>11} "
          f"{'în timpul calculului':>21}  ranguri identice")
    refuzuri = []
    for m in masuratori:
        galeata = f"{cifre.format_numar(m.galeata_mb)} MiB"
        if m.eroare:
            print(f"{m.nume:<30} {galeata:>8}  refuzat (vezi sub tabel)")
            refuzuri.append(explica_refuzul(m.eroare, m.galeata_mb))
            continue
        print(f"{m.nume:<30} {galeata:>8} {m.grafuri_dynamo:>8} {m.grafuri:>12} {m.all_reduce[-1]:>11} "
              f"{m.suprapunere():>21}  {cifre.da_nu(m.ranguri_identice)}")
    for refuz in refuzuri:
        print(refuz)
    for m in masuratori:
        if m.eroare:
            continue
        cheie = {MOD_EAGER: "eager", True: "ddpoptimizer", False: "un_graf"}.get(m.mod)
        if cheie is None:
            continue
        galeata_cheie = cifre.format_numar(m.galeata_mb).replace(",", "_")
        descriere = f"{m.nume}, bucket_cap_mb={cifre.format_numar(m.galeata_mb)}"
        if m.mod != MOD_EAGER:
            cifre.inregistreaza(f"08.grafuri_{cheie}_{galeata_cheie}mb", m.grafuri, "grafuri", f"{descriere}: grafuri compilate")
        cifre.inregistreaza(f"08.suprapuse_{cheie}_{galeata_cheie}mb", m.suprapuse[-1], "all-reduce",
                            f"{descriere}: all-reduce-uri pornite înainte de sfârșitul calculului înapoi (din {m.all_reduce[-1]})")


def _enumera(elemente: list[str]) -> str:
    return elemente[0] if len(elemente) == 1 else ", ".join(elemente[:-1]) + " și " + elemente[-1]


def arata_suprapunerea(masuratori: list[MasuratoareDDP]) -> None:
    """Pentru fiecare configurație (ultimul pas măsurat), o propoziție calculată din numere: câte
    all-reduce-uri au pornit cât încă se calcula pasul înapoi, câte după el și gradienții căror
    straturi i-au dus pe cei de după (cu „primele straturi ale modelului” doar dacă chiar sunt)."""
    for m in masuratori:
        if m.eroare:
            continue
        n, inainte = m.all_reduce[-1], m.suprapuse[-1]
        dupa = n - inainte
        if n == 0:
            propozitie = "niciun all-reduce în pasul măsurat"
        elif inainte == 0:
            propozitie = ("singurul all-reduce a pornit după sfârșitul calculului înapoi" if n == 1 else
                          f"niciunul dintre cele {cifre.cu_substantiv(n, 'all-reduce', 'all-reduce-uri')} n-a pornit "
                          "în timpul calculului înapoi: toate au pornit după el")
        elif dupa == 0:
            propozitie = f"toate cele {cifre.cu_substantiv(n, 'all-reduce', 'all-reduce-uri')} au pornit în timpul calculului înapoi"
        else:
            verb = "a pornit" if inainte == 1 else "au pornit"
            propozitie = (f"{inainte} din {cifre.cu_substantiv(n, 'all-reduce', 'all-reduce-uri')} {verb} în timpul "
                          f"calculului înapoi, {dupa} după el")
            galeti, primul = m.galeti_dupa_calcul(), m.primul_strat()
            if galeti and primul and all(primul in g for g in galeti):
                cine = "acesta duce" if len(galeti) == 1 else f"fiecare dintre cele {len(galeti)} duce"
                propozitie += (f"; {cine} gradienți ai primului strat ({primul}), pe care pasul înapoi îi "
                               "calculează ultimii")
            elif galeti:
                straturi = sorted({s for g in galeti for s in g}, key=_cheie_strat)
                propozitie += f", cu gradienții lui {_enumera(straturi)}"
        print(f"{m.nume}, bucket_cap_mb={cifre.format_numar(m.galeata_mb)}: {propozitie}.")


# ---------------------------------------------------------------------------------------------
# Unde pui compilarea: înainte sau după DDP(...)
# ---------------------------------------------------------------------------------------------


def _secventa(latime: int) -> nn.Sequential:
    return nn.Sequential(nn.Linear(latime, latime), nn.GELU(), nn.Linear(latime, latime), nn.GELU(),
                         nn.Linear(latime, 1))


#: Sufixul unei variante care rulează fără DDPOptimizer (`optimize_ddp=False`).
FARA_DDPOPTIMIZER = " [optimize_ddp=False]"


def _experiment_plasare(variante, latime, blocuri, galeata_mb, backend):
    _liniste_in_rang()
    from torch.nn.parallel import DistributedDataParallel as DDP

    dispozitiv = _dispozitivul_rangului()
    rezultate = {}
    for varianta in variante:
        goleste_dynamo()
        torch.manual_seed(0)
        plasare = varianta.removesuffix(FARA_DDPOPTIMIZER)
        model = (_secventa(latime) if varianta.startswith("Sequential") else ReteaBlocuri(latime, blocuri)).to(dispozitiv)
        with torch._dynamo.config.patch(optimize_ddp=not varianta.endswith(FARA_DDPOPTIMIZER)):
            if plasare.endswith("torch.compile(DDP(model))"):
                pas = torch.compile(DDP(model, bucket_cap_mb=galeata_mb), backend=backend)
            elif plasare.endswith("model.compile(); DDP(model)"):
                model.compile(backend=backend)
                pas = DDP(model, bucket_cap_mb=galeata_mb)
            else:  # DDP(torch.compile(model))
                pas = DDP(torch.compile(model, backend=backend), bucket_cap_mb=galeata_mb)
            for _ in range(2):
                pas(torch.randn(8, latime, device=dispozitiv)).sum().backward()
        rezultate[varianta] = numar_grafuri_compilate()
    goleste_dynamo()
    return rezultate


#: Variantele lui `grafuri_sub_ddp`: modelul („Sequential” sau „ReteaBlocuri”) și locul compilării;
#: ultima, aceeași plasare ca penultima, fără DDPOptimizer.
VARIANTE_PLASARE = (
    "Sequential: torch.compile(DDP(model))",
    "Sequential: model.compile(); DDP(model)",
    "Sequential: DDP(torch.compile(model))",
    "ReteaBlocuri: torch.compile(DDP(model))",
    "ReteaBlocuri: model.compile(); DDP(model)",
    "ReteaBlocuri: DDP(torch.compile(model))",
    "ReteaBlocuri: DDP(torch.compile(model))" + FARA_DDPOPTIMIZER,
)


def grafuri_sub_ddp(variante=VARIANTE_PLASARE, *, latime: int = 512, blocuri: int = 8, galeata_mb: float = 1.0,
                    ranguri: int = 2, limita_s: float = 480.0) -> dict[str, dict]:
    """Pentru fiecare variantă (vezi `VARIANTE_PLASARE`), contoarele lui Dynamo
    (`numar_grafuri_compilate`: grafurile lui Dynamo și grafurile AOTAutograd, în care le taie
    DDPOptimizer) după doi pași de antrenare, măsurate în rangul 0. Modelele au lățimea `latime`
    (`ReteaBlocuri` are `blocuri` blocuri), iar DDP are găleți de `galeata_mb` MiB: cu modelul
    capitolului și 1 MiB, fiecare bloc își umple singur găleata, deci tăieturile se văd."""
    backend = alege_backend(ranguri)
    return ruleaza_pe_ranguri(_experiment_plasare, tuple(variante), latime, blocuri, float(galeata_mb),
                              backend_compilare(backend), ranguri=ranguri, limita_s=limita_s)[0]


def _grafuri(numar: int) -> str:
    return cifre.cu_substantiv(numar, "graf", "grafuri")


def arata_plasari(plasari: dict[str, dict]) -> None:
    """Tabelul lui `grafuri_sub_ddp` (grafurile lui Dynamo, grafurile AOTAutograd, operațiile,
    întreruperile), apoi, pentru fiecare variantă, ce spun cele două numărători: n-a capturat nimic,
    un graf netăiat sau un graf tăiat de DDPOptimizer; `DDP(torch.compile(model))` comparat cu
    `torch.compile(DDP(model))` pe același model."""
    latime = max(len(v) for v in plasari) + 2
    print(f"{'':<{latime}} {'grafuri':^21}")
    print(f"{'varianta':<{latime}} {'Dynamo':>8} {'AOTAutograd':>12} {'operații':>9} {'întreruperi':>12}")
    for varianta, c in plasari.items():
        print(f"{varianta:<{latime}} {c['grafuri_dynamo']:>8} {c['grafuri']:>12} {c['operatii']:>9} {c['intreruperi']:>12}")
    print()
    for varianta, c in plasari.items():
        dynamo, aot = c["grafuri_dynamo"], c["grafuri"]
        if dynamo == 0:
            ce = "Dynamo n-a capturat niciun graf: modelul a rulat în modul eager, fără niciun avertisment"
        elif aot > dynamo:
            cine = "" if varianta.endswith(FARA_DDPOPTIMIZER) else "DDPOptimizer "
            ce = f"Dynamo a capturat {_grafuri(dynamo)}, pe care {cine}l-a tăiat în {_grafuri(aot)} AOTAutograd"
            if dynamo > 1:
                ce = ce.replace("l-a tăiat", "le-a tăiat")
        else:
            ce = f"Dynamo a capturat {_grafuri(dynamo)}, netăiat: {_grafuri(aot)} AOTAutograd"
            if dynamo > 1:
                ce = ce.replace("netăiat:", "netăiate:")
        print(f"{varianta}: {ce}.")
    for model in sorted({v.split(":")[0] for v in plasari}):
        inauntru, afara = plasari.get(f"{model}: DDP(torch.compile(model))"), plasari.get(f"{model}: torch.compile(DDP(model))")
        if inauntru is None or afara is None or afara["grafuri"] == 0:
            continue
        a, b = inauntru["grafuri"], afara["grafuri"]
        fata = "la fel ca" if a == b else ("mai multe decât" if a > b else "mai puține decât")
        print(f"{model}: DDP(torch.compile(model)) dă {_grafuri(a)} AOTAutograd, {fata} "
              f"torch.compile(DDP(model)) ({b}).")


# ---------------------------------------------------------------------------------------------
# python_reducer: all-reduce-urile în graful pasului înapoi
# ---------------------------------------------------------------------------------------------


def _autograd_compilat(compilator):
    """Contextul care compilează pasul înapoi (autograd compilat). În torch 2.11–2.14 e
    `torch._dynamo.compiled_autograd._enable` (un API privat: se poate schimba)."""
    from torch._dynamo import compiled_autograd

    activeaza = getattr(compiled_autograd, "_enable", None) or getattr(compiled_autograd, "enable")
    return activeaza(compilator)


def _descrie_graful(gm, faza: str) -> dict:
    """Ce numără `reductor_python` într-un graf: operațiile, all-reduce-urile, câte dintre ele sunt
    urmate imediat de așteptarea lor (`wait_tensor` pe rezultatul lor), a câta operație e primul
    all-reduce și câte alte operații (nu comunicare) vin după el."""
    noduri = [n for n in gm.graph.nodes if n.op == "call_function"]
    tinte = [str(n.target) for n in noduri]
    pozitii = [i for i, t in enumerate(tinte) if "all_reduce" in t]
    imediate = sum(1 for i in pozitii if i + 1 < len(noduri) and "wait_tensor" in tinte[i + 1]
                   and noduri[i] in noduri[i + 1].all_input_nodes)
    dupa = sum(1 for t in tinte[pozitii[0] + 1:] if "c10d" not in t) if pozitii else 0
    return {"faza": faza, "operatii": len(tinte), "all_reduce": len(pozitii), "asteptari_imediate": imediate,
            "primul_all_reduce": pozitii[0] + 1 if pozitii else None, "calcul_dupa_primul": dupa}


def _experiment_reductor(latime, blocuri, galeata_mb, pasi, backend):
    _liniste_in_rang()
    from torch.nn.parallel import DistributedDataParallel as DDP

    dispozitiv = _dispozitivul_rangului()
    grafuri = []

    def inregistreaza(faza):
        def compilator(gm, exemple):
            grafuri.append(_descrie_graful(gm, faza))
            return torch._dynamo.backends.registry.lookup_backend(backend)(gm, exemple)
        return compilator

    goleste_dynamo()
    torch.manual_seed(0)
    model = ReteaBlocuri(latime, blocuri).to(dispozitiv)
    parametri = sum(1 for p in model.parameters())
    with torch._dynamo.config.patch(optimize_ddp="python_reducer"):
        pas = torch.compile(DDP(model, bucket_cap_mb=galeata_mb), backend=inregistreaza("înainte"))
        for _ in range(pasi):
            with _autograd_compilat(torch.compile(backend=inregistreaza("înapoi"))):
                pas(torch.randn(8, latime, device=dispozitiv)).pow(2).mean().backward()
    from torch._dynamo.utils import counters

    capturi = int(counters["compiled_autograd"]["captures"])
    goleste_dynamo()
    # Aceeași încercare cu reductorul C++ al lui DDP (orice altă valoare a lui optimize_ddp):
    # PyTorch refuză autograd-ul compilat la primul pas înapoi, în toate rangurile, înainte de
    # orice all-reduce, deci rangurile rămân în acord.
    refuz = None
    torch.manual_seed(0)
    ddp = DDP(ReteaBlocuri(latime, blocuri).to(dispozitiv), bucket_cap_mb=galeata_mb)
    try:
        with _autograd_compilat(torch.compile(backend="eager")):
            ddp(torch.randn(8, latime, device=dispozitiv)).pow(2).mean().backward()
    except Exception as eroare:  # noqa: BLE001 — refuzul e chiar ce arătăm
        refuz = f"{type(eroare).__name__}: {eroare}"
    goleste_dynamo()
    return {"grafuri": grafuri, "capturi_inapoi": capturi, "parametri": parametri, "refuz_reductor_cpp": refuz,
            "backend": backend}


def reductor_python(*, latime: int = 256, blocuri: int = 4, galeata_mb: float = 25.0, pasi: int = 3,
                    ranguri: int = 2, limita_s: float = 180.0) -> dict:
    """`optimize_ddp="python_reducer"` cu autograd compilat, în rangul 0: grafurile date
    compilatorului (pentru fiecare: faza, operațiile, all-reduce-urile, câte sunt urmate imediat de
    așteptarea lor, unde e primul și câte operații vin după el; vezi `_descrie_graful`), câte grafuri
    ale pasului înapoi a capturat autograd-ul compilat, câți parametri are modelul, backend-ul de
    compilare și ce spune PyTorch când încerci autograd-ul compilat cu reductorul C++ al lui DDP
    (`refuz_reductor_cpp`; None dacă l-ar fi acceptat)."""
    backend = alege_backend(ranguri)
    return ruleaza_pe_ranguri(_experiment_reductor, latime, blocuri, galeata_mb, pasi, backend_compilare(backend),
                              ranguri=ranguri, limita_s=limita_s)[0]


def arata_reductorul(reductor: dict) -> None:
    """Ce a găsit `reductor_python`, în propoziții: fiecare graf (faza, operațiile, all-reduce-urile,
    unde e primul, câte sunt așteptate imediat), capturile pasului înapoi și refuzul reductorului C++."""
    for indice, graf in enumerate(reductor["grafuri"]):
        rand = (f"graful {indice} (pasul {graf['faza']}): {cifre.cu_substantiv(graf['operatii'], 'operație', 'operații')}, "
                f"{cifre.cu_substantiv(graf['all_reduce'], 'all-reduce', 'all-reduce-uri') if graf['all_reduce'] else 'niciun all-reduce'}")
        if graf["all_reduce"]:
            n, imediate = graf["all_reduce"], graf["asteptari_imediate"]
            rand += (f"; primul all-reduce e operația {graf['primul_all_reduce']}, urmat de "
                     f"{cifre.cu_substantiv(graf['calcul_dupa_primul'], 'altă operație', 'alte operații')}; "
                     f"all-reduce-uri așteptate chiar de operația următoare (wait_tensor): {imediate} din {n}")
        print(rand)
    print(f"grafuri ale pasului înapoi capturate de autograd-ul compilat: {reductor['capturi_inapoi']}; "
          f"parametri în model: {reductor['parametri']}; backend-ul din ranguri: {reductor['backend']}")
    inapoi = [g for g in reductor["grafuri"] if g["faza"] == "înapoi" and g["all_reduce"]]
    if inapoi and all(g["asteptari_imediate"] == g["all_reduce"] for g in inapoi):
        print("Fiecare all-reduce e așteptat chiar de operația următoare: așa cum e scris graful, comunicarea nu se "
              "suprapune cu calculul. Ca să se suprapună, un compilator ar trebui să mute așteptările mai târziu.")
    refuz = reductor.get("refuz_reductor_cpp")
    if refuz:
        tip, _, mesaj = refuz.partition(": ")
        print(f"Autograd-ul compilat cu reductorul C++ al lui DDP (fără python_reducer): refuzat la primul pas înapoi. "
              f"Mesajul lui PyTorch ({tip}): „{mesaj.strip().splitlines()[0][:200]}”")
    else:
        print("Autograd-ul compilat cu reductorul C++ al lui DDP (fără python_reducer): acceptat pe versiunea ta de torch.")


# ---------------------------------------------------------------------------------------------
# FSDP2: fragmentarea și compilarea bloc cu bloc
# ---------------------------------------------------------------------------------------------


def explica_garda(motiv: str) -> str:
    """O gardă căzută (textul lui Dynamo, în engleză) spusă întâi în română, cu textul lui Dynamo
    după, scurt. Cazul capitolului: `requires_grad` al unei intrări diferă de cel de la compilare."""
    import re

    potrivire = re.search(r"tensor\s+(.+?)\s+requires_grad mismatch\.\s*expected requires_grad=(\d)", motiv)
    if potrivire:
        nume = potrivire.group(1).strip("'\"")
        compilat = potrivire.group(2) == "1"
        ce = (f"intrarea {nume} a fost compilată {'cu' if compilat else 'fără'} requires_grad, iar acum vine "
              f"{'fără' if compilat else 'cu'} el")
    else:
        ce = "o gardă a căzut"
    return f"{ce} (garda lui Dynamo: „{motiv.strip().splitlines()[0][:160] if motiv.strip() else ''}”)"


def _experiment_fsdp(latime, blocuri, intrare, fullgraph, pasi, backend):
    _liniste_in_rang()
    import torch.distributed as dist
    from torch.distributed.device_mesh import init_device_mesh
    from torch.distributed.fsdp import fully_shard

    from ..inspectie import NumaratorCompilari

    dispozitiv = _dispozitivul_rangului()
    retea = init_device_mesh(dispozitiv.type, (dist.get_world_size(),))
    torch.manual_seed(0)
    model = ReteaBlocuri(latime, blocuri, intrare=intrare).to(dispozitiv)
    numarator = NumaratorCompilari(backend)
    goleste_dynamo()
    for bloc in model.blocuri:  # ca în torchtitan: fiecare bloc compilat și fragmentat separat
        bloc.compile(backend=numarator, fullgraph=fullgraph)
        fully_shard(bloc, mesh=retea)
    fully_shard(model, mesh=retea)  # rădăcina: parametrii rămași (capul, intrarea)
    greutate = model.blocuri[0].liniar.weight
    optimizator = torch.optim.SGD(model.parameters(), lr=0.01)
    generator = torch.Generator().manual_seed(1000 + dist.get_rank())
    for _ in range(pasi):
        optimizator.zero_grad(set_to_none=True)
        model(torch.randn(8, latime, generator=generator).to(dispozitiv)).pow(2).mean().backward()
        optimizator.step()
    rezultat = {
        "tip_parametru": type(greutate).__name__,
        "forma_intreaga": tuple(greutate.shape),
        "forma_locala": tuple(greutate.to_local().shape),
        "fragmentare": str(getattr(greutate, "placements", "")),
        "compilari": numarator.compilari,
        "rulari": numarator.rulari,
        "motive": motive_recompilare(),
        **{k: v for k, v in numar_grafuri_compilate().items() if k == "intreruperi"},
        "memorie_parametri": sum(p.to_local().numel() * p.element_size() for p in model.parameters()),
        "memorie_model": sum(p.numel() * p.element_size() for p in model.parameters()),
    }
    goleste_dynamo()
    return rezultat


#: Variantele secțiunii 4: blocurile fără strat de intrare în față, cu el și cu `fullgraph=True`.
VARIANTE_FSDP = {"simplu": {}, "intrare": {"intrare": True}, "fullgraph": {"fullgraph": True}}


def _experimente_fsdp(variante, latime, blocuri, pasi, backend):
    """Variantele una după alta, în același rang; fiecare pornește de la un Dynamo gol."""
    return {nume: _experiment_fsdp(latime, blocuri, optiuni.get("intrare", False), optiuni.get("fullgraph", False),
                                   pasi, backend)
            for nume, optiuni in variante.items()}


def masoara_fsdp_variante(variante: dict | None = None, *, latime: int = 64, blocuri: int = 4, pasi: int = 2,
                          ranguri: int = 2, limita_s: float = 180.0) -> dict[str, list[dict]]:
    """Ca `masoara_fsdp`, pentru mai multe variante (`{nume: {"intrare": ..., "fullgraph": ...}}`,
    implicit `VARIANTE_FSDP`), toate într-o singură pornire a rangurilor: procesele noi, importurile
    și prima compilare se plătesc o singură dată (pe două nuclee, o pornire cu o compilare mică a
    costat ~9 s de procesor), fiecare variantă în plus doar cât lucrează ea.
    Întoarce, pentru fiecare variantă, lista rezultatelor rangurilor."""
    variante = dict(VARIANTE_FSDP if variante is None else variante)
    backend = alege_backend(ranguri)
    pe_ranguri = ruleaza_pe_ranguri(_experimente_fsdp, variante, latime, blocuri, pasi, backend_compilare(backend),
                                    ranguri=ranguri, limita_s=limita_s)
    return {nume: [rang[nume] for rang in pe_ranguri] for nume in variante}


def masoara_fsdp(*, intrare: bool = False, fullgraph: bool = False, latime: int = 64, blocuri: int = 4,
                 pasi: int = 2, ranguri: int = 2, limita_s: float = 180.0) -> list[dict]:
    """`ReteaBlocuri(latime, blocuri, intrare)` fragmentată cu FSDP2 (`fully_shard` pe fiecare
    bloc, apoi pe rădăcină) pe o rețea de dispozitive cu `ranguri` procese, fiecare bloc compilat
    (`bloc.compile(fullgraph=fullgraph)`), antrenată `pasi` pași. Întoarce, pentru fiecare rang:
    tipul și formele unei greutăți (forma întreagă și cea a fragmentului local), compilările, rulările
    compilate, motivele recompilărilor, întreruperile și memoria parametrilor (a rangului și a
    modelului întreg)."""
    varianta = {"intrare": intrare, "fullgraph": fullgraph}
    return masoara_fsdp_variante({"aleasa": varianta}, latime=latime, blocuri=blocuri, pasi=pasi, ranguri=ranguri,
                                 limita_s=limita_s)["aleasa"]


def _apelurile_in_rang(apeluri: dict) -> dict:
    with rangurile_deja_pornite(sys.modules[__name__]):
        return {nume: apel() for nume, apel in apeluri.items()}


def intr_o_singura_pornire(apeluri: dict, *, ranguri: int = 2, limita_s: float = 600.0) -> dict:
    """Mai multe experimente ale capitolului (de exemplu `functools.partial(masoara_ddp, ...)`), unul
    după altul, într-o singură pornire a rangurilor (`cap08_ranguri.rangurile_deja_pornite`). Fiecare
    experiment pornește de la un Dynamo gol, ca într-o pornire a lui. Întoarce `{nume: ce a întors
    apelul}`. Toate experimentele trebuie să ceară `ranguri` ranguri."""
    return ruleaza_pe_ranguri(_apelurile_in_rang, dict(apeluri), ranguri=ranguri, limita_s=limita_s)[0]


# ---------------------------------------------------------------------------------------------
# Graficele și exploratorul
# ---------------------------------------------------------------------------------------------


def grafic_grafuri_pe_galeata(masuratori: list[MasuratoareDDP], octeti: list[int] | None = None):
    """Grafurile lui DDPOptimizer pentru fiecare mărime de găleată (bare), cu numărul prezis de
    regulă (puncte), dacă știi octeții straturilor."""
    import matplotlib.pyplot as plt

    alese = sorted((m for m in masuratori if m.mod is True and not m.eroare), key=lambda m: m.galeata_mb)
    figura, axa = plt.subplots(figsize=(6.4, 3.4))
    etichete = [cifre.format_numar(m.galeata_mb) for m in alese]
    axa.bar(etichete, [m.grafuri for m in alese], color="#4c72b0", label="măsurate (DDPOptimizer)")
    if octeti is not None:
        axa.plot(etichete, [grafuri_prezise(octeti, m.galeata_mb) for m in alese], "o", color="#dd8452",
                 label="prezise de regulă")
    for i, m in enumerate(alese):
        axa.annotate(str(m.grafuri), (i, m.grafuri), ha="center", va="bottom")
    axa.set_xlabel("bucket_cap_mb (MiB)")
    axa.set_ylabel("grafuri compilate")
    axa.set_title("DDPOptimizer: un graf pentru fiecare găleată")
    axa.legend(loc="upper right")
    figura.tight_layout()
    return figura


def grafic_suprapunere(masuratori: list[MasuratoareDDP], titlu: str = "când pornesc all-reduce-urile"):
    """Ultimul pas al fiecărei configurații, pe o axă a timpului (ms de la apelul lui
    `backward()`): câte o linie, cu un punct pentru fiecare all-reduce pornit, o bară verticală
    la sfârșitul calculului înapoi și un „x” la întoarcerea din `backward()`."""
    import matplotlib.pyplot as plt

    masuratori = [m for m in masuratori if not m.eroare]
    figura, axa = plt.subplots(figsize=(7.2, 0.75 * len(masuratori) + 1.2))
    for rand, m in enumerate(masuratori):
        momente = m.momente_ms
        sfarsit = momente["sfarsit_calcul"]
        axa.plot([0, sfarsit], [rand, rand], color="#bbbbbb", linewidth=6, solid_capstyle="butt")
        inainte = [t for t in momente["all_reduce"] if t < sfarsit]
        dupa = [t for t in momente["all_reduce"] if t >= sfarsit]
        axa.plot(inainte, [rand] * len(inainte), "o", color="#55a868", label="all-reduce în timpul calculului" if rand == 0 else None)
        axa.plot(dupa, [rand] * len(dupa), "o", color="#c44e52", label="all-reduce după calcul" if rand == 0 else None)
        axa.plot([momente["intoarcere"]], [rand], "x", color="black", label="backward() s-a întors" if rand == 0 else None)
    axa.set_yticks(range(len(masuratori)))
    axa.set_yticklabels([f"{m.nume}\n{m.suprapunere()} în timpul calculului" for m in masuratori], fontsize=8)
    axa.set_xlabel("ms de la apelul lui backward() (bara gri: calculul pasului înapoi)")
    axa.set_title(titlu)
    axa.invert_yaxis()
    axa.legend(loc="lower right", fontsize=8)
    figura.tight_layout()
    return figura


def exploreaza_galetile(masuratori: list[MasuratoareDDP], octeti: list[int] | None = None):
    """Un explorator: alegi mărimea găleții și vezi, măsurat, câte grafuri a făcut DDPOptimizer
    și când au pornit all-reduce-urile, lângă modul eager și lângă `optimize_ddp=False` (unde
    există pentru aceeași găleată)."""
    from ..explorator import Control, exploreaza
    from ..grafice import arata

    galeti = sorted({m.galeata_mb for m in masuratori if m.mod is True and not m.eroare})

    def actualizeaza(galeata_mb):
        alese = [m for m in masuratori if m.galeata_mb == galeata_mb and not m.eroare]
        alese.sort(key=lambda m: {MOD_EAGER: 0, True: 1, False: 2}.get(m.mod, 3))
        compilat = next(m for m in alese if m.mod is True)
        prezis = f", prezise de regulă: {grafuri_prezise(octeti, galeata_mb)}" if octeti is not None else ""
        print(f"bucket_cap_mb={cifre.format_numar(galeata_mb)}: "
              f"{cifre.cu_substantiv(compilat.grafuri, 'graf compilat', 'grafuri compilate')}{prezis}; all-reduce-uri pe pas: {compilat.all_reduce[-1]}")
        arata(grafic_suprapunere(alese, f"bucket_cap_mb={cifre.format_numar(galeata_mb)}"))

    return exploreaza(actualizeaza, galeata_mb=Control("bucket_cap_mb (MiB)", galeti, implicit=galeti[0]))
