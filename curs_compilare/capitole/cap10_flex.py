"""Uneltele capitolului 10 — compilatorul scrie kernel-ul atenției: FlexAttention.

Celulele capitolului arată lecția (o funcție `mask_mod`, o funcție `score_mod`, un apel
`flex_attention`); de aici vine contabilitatea din jurul lor:

- `marimi_pentru` — dimensiunile experimentelor, după mașină și profil;
- `alege_dispozitivul_flex` — unde rulează FlexAttention: pe un GPU vechi (capabilitate sub 8.0,
  ca un T4) un apel mic, compilat, încercat întâi într-un proces separat, cu limită de timp; dacă
  nu merge, experimentele cu FlexAttention trec pe procesor, cu explicația în română;
- `masoara_atentia_naiva` / `arata_atentia_naiva` — timpul și memoria atenției naive (matricea
  S×S), compilate sau nu, față de `scaled_dot_product_attention`, pe lungimi tot mai mari;
- `stari_blocuri`, `grafic_masca`, `exploreaza_mastile` — masca pe blocuri, desenată;
- `perechi_permise`, `masoara_debitul`, `arata_debitul` — TFLOP/s numărând doar perechile
  (întrebare, cheie) pe care masca le păstrează;
- `numara_recompilarile` / `arata_recompilarile` — ce schimbare recompilează și ce schimbare nu;
- `incearca_inapoi` — pasul înapoi (backward), generat și el; pe procesor nu există;
- `kernelul_atentiei` — unde sare kernel-ul generat peste blocurile goale;
- `ReteaCuFlex`, `compara_modelele` — modelul cursului cu atenția FlexAttention cu fereastră.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import subprocess
import sys
import textwrap
import time
import warnings
from dataclasses import dataclass, field
from typing import Callable, Mapping, Sequence

import torch
import torch.nn.functional as F

from .. import cifre
from ..concluzii import concluzie_accelerare
from ..cifre import cu_substantiv, cu_unitate, format_numar, format_octeti, format_procent, format_timp
from ..masurare import Comparatie, Masuratoare, compara, compara_pasi_ficsi
from ..mediu import dimensiune, gpu_mare, sincronizeaza
from ..modele import BlocTransformer, ConfiguratieTransformer, ReteaTransformer

try:  # torch ≥ 2.5; cursul cere 2.11 sau mai nou
    from torch.nn.attention.flex_attention import BlockMask, create_block_mask, create_mask, flex_attention
except ImportError:  # pragma: no cover - versiune prea veche
    BlockMask = create_block_mask = create_mask = flex_attention = None

#: Variabila de mediu care simulează un eșec al încercării pe un GPU vechi (pentru teste și pentru
#: instructorul care vrea să vadă calea de rezervă): „memorie”, „nan” sau „blocaj”.
VARIABILA_ESEC_SIMULAT = "CURS_FLEX_ESEC_SIMULAT"
#: Cât are voie să dureze încercarea FlexAttention pe un GPU vechi (compilarea unui kernel mic).
LIMITA_INCERCARE_S = 240.0
#: De la ce capabilitate CUDA merg șabloanele Triton ale FlexAttention fără altă încercare (Ampere).
CAPABILITATE_MINIMA = (8, 0)
#: Ținta capitolului pe un GPU mare: FlexAttention cauzală la cel puțin atât din debitul SDPA.
TINTA_FATA_DE_SDPA = 0.85
#: A doua țintă a capitolului pe un GPU mare: fereastra glisantă mai rapidă decât SDPA cauzală fără
#: fereastră de la această lungime în sus.
LUNGIME_TINTA_FEREASTRA = 4096


@contextlib.contextmanager
def fara_avertismentul_necompilat():
    """Bloc în care avertismentul „flex_attention called without torch.compile()” nu se afișează."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*flex_attention called without torch.compile.*")
        yield


# ---------------------------------------------------------------------------------------------
# Dimensiunile
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Marimi:
    """Dimensiunile experimentelor: lotul, capetele, dimensiunea unui cap, lungimile secvenței
    (`lungimi` pentru comparația cu SDPA, `lungimi_naive` pentru atenția naivă), lățimea
    ferestrei glisante și tipul de date."""

    lot: int
    capete: int
    dim_cap: int
    lungimi: tuple[int, ...]
    lungimi_naive: tuple[int, ...]
    fereastra: int
    tip: torch.dtype

    @property
    def lungime(self) -> int:
        """Lungimea de lucru a capitolului: cea din mijlocul listei `lungimi`."""
        return self.lungimi[len(self.lungimi) // 2]

    def descriere(self) -> str:
        tip = str(self.tip).removeprefix("torch.")
        lungimi = "lungimea" if len(self.lungimi) == 1 else "lungimile"
        return (f"lotul {self.lot}, {cu_substantiv(self.capete, 'cap', 'capete')} de dimensiune {self.dim_cap}, "
                f"{lungimi} {', '.join(format_numar(s) for s in self.lungimi)}, fereastra {format_numar(self.fereastra)}, {tip}")


def marimi_pentru(dispozitiv: str, bf16: bool = True) -> Marimi:
    """Dimensiunile pentru `dispozitiv` („cuda” sau „cpu”) și profilul curent. Pe GPU, lungimile
    cerute de capitol (1 024 – 16 384, fereastra de 512), în bfloat16 (float16 pe un GPU fără
    bfloat16, ca T4-ul); atenția naivă urcă până unde nu mai încape. Pe procesor, totul e mic:
    FlexAttention rulează acolo doar pasul înainte, printr-un kernel C++ generat."""
    if dispozitiv == "cuda":
        naive = (1024, 2048, 4096, 8192, 16384, 32768, 65536) if gpu_mare() else (1024, 2048, 4096, 8192, 16384)
        return Marimi(
            lot=dimensiune(gpu=4, cpu=4, rapid=1), capete=dimensiune(gpu=16, cpu=16, rapid=2),
            dim_cap=64, lungimi=dimensiune(gpu=(1024, 4096, 16384), cpu=(1024, 4096, 16384), rapid=(256, 512)),
            lungimi_naive=dimensiune(gpu=naive, cpu=naive, rapid=(256, 512)),
            fereastra=dimensiune(gpu=512, cpu=512, rapid=128),
            tip=torch.bfloat16 if bf16 else torch.float16,
        )
    return Marimi(
        lot=1, capete=dimensiune(gpu=4, cpu=4, rapid=2), dim_cap=dimensiune(gpu=32, cpu=32, rapid=16),
        lungimi=dimensiune(gpu=(256, 512, 1024), cpu=(256, 512, 1024), rapid=(256,)),
        lungimi_naive=dimensiune(gpu=(256, 512, 1024, 2048), cpu=(256, 512, 1024, 2048), rapid=(128, 256)),
        fereastra=dimensiune(gpu=128, cpu=128, rapid=64),
        tip=torch.float32,
    )


def qkv(marimi: Marimi, lungime: int, dispozitiv: str, seminta: int = 0, cere_grad: bool = False):
    """Întrebările, cheile și valorile (lot × capete × lungime × dim_cap), aleatoare, pe
    `dispozitiv`, în tipul de date al mărimilor."""
    generator = torch.Generator(device="cpu").manual_seed(seminta)
    forma = (marimi.lot, marimi.capete, lungime, marimi.dim_cap)
    tensori = [torch.randn(forma, generator=generator).to(dispozitiv, marimi.tip) for _ in range(3)]
    if cere_grad:
        tensori = [t.requires_grad_() for t in tensori]
    return tuple(tensori)


# ---------------------------------------------------------------------------------------------
# Unde rulează FlexAttention: GPU-urile vechi, încercate cu grijă
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class AlegereFlex:
    """Unde rulează experimentele cu FlexAttention și de ce."""

    dispozitiv: str
    marimi: Marimi
    motiv: str
    #: Ce a eșuat pe GPU (textul erorii, scurtat), când experimentele au trecut pe procesor.
    esec: str = ""

    @property
    def pe_gpu(self) -> bool:
        return self.dispozitiv == "cuda"

    def __str__(self) -> str:
        return self.motiv


_SCRIPT_INCERCARE = r"""
import json, os, sys, time
simulat = os.environ.get("CURS_FLEX_ESEC_SIMULAT", "").strip().lower()
if simulat == "blocaj":
    time.sleep(3600)
if simulat == "memorie":
    raise RuntimeError("triton.runtime.errors.OutOfResources: out of resource: shared memory, "
                       "Required: 81920, Hardware limit: 65536. Reducing block sizes or `num_stages` may help. "
                       "(eșec simulat de CURS_FLEX_ESEC_SIMULAT)")
if simulat == "nan":
    print(json.dumps({"secunde": 1.0, "finit": False, "diferenta": float("nan")}))
    sys.exit(0)
import torch
import torch.nn.functional as F
from torch.nn.attention.flex_attention import create_block_mask, flex_attention
tip = getattr(torch, sys.argv[1])
torch.manual_seed(0)
q, k, v = (torch.randn(1, 2, 256, 64, device="cuda", dtype=tip, requires_grad=True) for _ in range(3))
masca = create_block_mask(lambda b, h, qi, kv: qi >= kv, None, None, 256, 256, device="cuda")
start = time.perf_counter()
# înainte și înapoi: șablonul pasului înapoi cere și el memorie partajată
iesire = torch.compile(flex_attention)(q, k, v, block_mask=masca)
iesire.float().square().sum().backward()
torch.cuda.synchronize()
secunde = time.perf_counter() - start
gradienti = [t.grad for t in (q, k, v)]
for t in (q, k, v):
    t.grad = None
asteptat = F.scaled_dot_product_attention(q, k, v, is_causal=True)
asteptat.float().square().sum().backward()
finit = bool(torch.isfinite(iesire).all()) and all(bool(torch.isfinite(g).all()) for g in gradienti)
diferenta = max([float((iesire.float() - asteptat.float()).abs().max())] +
                [float((g.float() - t.grad.float()).abs().max()) / max(1.0, float(t.grad.float().abs().max()))
                 for g, t in zip(gradienti, (q, k, v))])
print(json.dumps({"secunde": secunde, "finit": finit, "diferenta": diferenta}))
"""


def _explica_esecul(text: str) -> str:
    if "out of resource" in text.lower() or "shared memory" in text.lower():
        return ("kernel-ul generat cere mai multă memorie partajată (shared memory) decât are un bloc pe acest GPU: "
                "șabloanele FlexAttention sunt reglate pentru GPU-urile de la capabilitatea 8.0 în sus")
    if "NaN" in text or "nefinit" in text:
        return "kernel-ul a rulat, dar a dat valori NaN sau infinite, deci rezultatul nu e de folosit"
    if "limita de timp" in text:
        return "compilarea sau rularea nu s-a încheiat în limita de timp"
    if "bf16" in text.lower() or "bfloat16" in text.lower() or "dtype" in text.lower():
        return "tipul de date nu e suportat de kernel pe acest GPU"
    return "compilarea sau rularea kernel-ului a eșuat"


def _ultima_linie_utila(text: str) -> str:
    linii = [l.strip() for l in text.strip().splitlines() if l.strip()]
    for linie in reversed(linii):
        if "Error" in linie or "error" in linie or "out of resource" in linie:
            return linie[:400]
    return (linii[-1] if linii else "")[:400]


def incearca_pe_gpu_vechi(tip: torch.dtype = torch.float16, limita_s: float = LIMITA_INCERCARE_S) -> tuple[bool, str]:
    """Un apel mic, compilat, al lui `flex_attention` pe GPU, înainte și înapoi (cele două șabloane
    de kernel), într-un proces separat cu limită de timp: o eroare, un blocaj sau un rezultat NaN nu
    ating kernel-ul notebook-ului. Întoarce
    (a mers, ce s-a întâmplat). `CURS_FLEX_ESEC_SIMULAT` (memorie, nan, blocaj) simulează un eșec."""
    comanda = [sys.executable, "-c", _SCRIPT_INCERCARE, str(tip).removeprefix("torch.")]
    try:
        rezultat = subprocess.run(comanda, capture_output=True, text=True, timeout=limita_s)
    except subprocess.TimeoutExpired:
        return False, f"încercarea nu s-a încheiat în limita de timp ({format_timp(limita_s)})"
    if rezultat.returncode != 0:
        return False, _ultima_linie_utila(rezultat.stderr or rezultat.stdout) or f"codul de ieșire {rezultat.returncode}"
    try:
        date = json.loads(rezultat.stdout.strip().splitlines()[-1])
    except (ValueError, IndexError):
        return False, "încercarea n-a scris niciun rezultat"
    if not date["finit"]:
        return False, "ieșirea conține valori NaN sau infinite (nefinite)"
    if date["diferenta"] > 0.05:
        return False, f"ieșirea diferă de SDPA cu până la {format_numar(date['diferenta'])}"
    return True, (f"un apel compilat mic, înainte și înapoi, a mers în {format_timp(date['secunde'])}, cu același "
                  "rezultat ca SDPA")


def alege_dispozitivul_flex(mediu, limita_s: float = LIMITA_INCERCARE_S) -> AlegereFlex:
    """Unde rulează experimentele cu FlexAttention pe mașina descrisă de `mediu`
    (`afiseaza_mediul()`):

    - fără GPU: pe procesor, la dimensiuni mici, doar pasul înainte;
    - pe un GPU de la capabilitatea 8.0 în sus: pe GPU, fără altă încercare;
    - pe un GPU mai vechi (un T4, capabilitatea 7.5): întâi `incearca_pe_gpu_vechi`; dacă nu
      merge, pe procesor, cu explicația eșecului.
    `CURS_FLEX_ESEC_SIMULAT` forțează încercarea și îi simulează eșecul."""
    if not mediu.are_gpu or flex_attention is None:
        return AlegereFlex("cpu", marimi_pentru("cpu"),
                           "FlexAttention rulează aici pe procesor: doar pasul înainte (inferența), printr-un kernel C++ "
                           "generat de Inductor, la dimensiuni mici. "
                           + cifre.despre_referinta("debitul FlexAttention pe GPU și pasul înapoi", "10.sdpa_tflops", "10.inapoi"))
    capabilitate = tuple(mediu.capabilitate or (0, 0))
    simulat = os.environ.get(VARIABILA_ESEC_SIMULAT, "").strip()
    tip = torch.bfloat16 if mediu.bf16_nativ else torch.float16
    if capabilitate >= CAPABILITATE_MINIMA and not simulat:
        return AlegereFlex("cuda", marimi_pentru("cuda", mediu.bf16_nativ),
                           f"FlexAttention rulează pe GPU ({mediu.nume_gpu}), în {str(tip).removeprefix('torch.')}.")
    merge, ce = incearca_pe_gpu_vechi(tip, limita_s)
    unde = f"{mediu.nume_gpu}, capabilitatea {capabilitate[0]}.{capabilitate[1]}"
    if merge:
        nota = (" Încercarea a rulat pe GPU-ul real de sub simulare, nu pe un "
                f"{mediu.gpu_simulat} adevărat." if getattr(mediu, "e_simulat", False) else "")
        return AlegereFlex("cuda", marimi_pentru("cuda", mediu.bf16_nativ),
                           f"Pe {unde}, FlexAttention a fost încercată întâi într-un proces separat: {ce}. "
                           f"Experimentele rulează pe GPU.{nota}")
    explicatie = _explica_esecul(ce)
    return AlegereFlex(
        "cpu", marimi_pentru("cpu"),
        f"Pe {unde}, FlexAttention n-a mers: {explicatie}. Ce a raportat încercarea (într-un proces separat, "
        f"ca notebook-ul să nu se oprească): „{ce}”. Experimentele cu FlexAttention rulează mai jos pe procesor, "
        "la dimensiuni mici și doar pasul înainte; `scaled_dot_product_attention` rămâne pe GPU. "
        + cifre.despre_referinta("FlexAttention pe GPU", "10.sdpa_tflops"),
        esec=ce,
    )


# ---------------------------------------------------------------------------------------------
# 1. Atenția naivă: matricea S×S, în timp și în memorie
# ---------------------------------------------------------------------------------------------


@dataclass
class RandNaiv:
    """O lungime a experimentului: timpul fiecărei variante (None: nu încape), vârful de memorie
    măsurat pe GPU (octeți peste intrări; None pe procesor) și mărimea matricei scorurilor."""

    lungime: int
    timpi: dict = field(default_factory=dict)
    memorie: dict = field(default_factory=dict)
    octeti_scoruri: int = 0
    nu_incape: dict = field(default_factory=dict)
    #: Mărimea ieșirii atenției (lot × capete × S × d): cât ține în plus un kernel fuzionat, care nu
    #: păstrează matricea scorurilor; crește cu S, nu cu S².
    octeti_iesire: int = 0


def _varf_memorie(functie: Callable, *argumente, fara_gradienti: bool = True) -> int:
    """Octeții ceruți în plus, la vârf, de un apel pe GPU (`crestere_memorie_mib` din capitolul 06)."""
    from .cap06_modelul_intreg import crestere_memorie_mib

    def apel():
        with torch.no_grad() if fara_gradienti else contextlib.nullcontext():
            functie(*argumente)

    return int(crestere_memorie_mib(apel) * 2**20)


def _e_lipsa_de_memorie(eroare: BaseException) -> bool:
    text = f"{type(eroare).__name__}: {eroare}"
    return isinstance(eroare, torch.OutOfMemoryError) or "out of memory" in text.lower()


def masoara_atentia_naiva(atentie_naiva: Callable, marimi: Marimi, dispozitiv: str,
                          compilata: Callable | None = None) -> list[RandNaiv]:
    """Pentru fiecare lungime din `marimi.lungimi_naive`: timpul atenției naive (eager și
    compilată) și al lui `scaled_dot_product_attention`, cauzale toate, măsurate împreună
    (`masurare.compara`), plus vârful de memorie pe GPU. O variantă care nu mai încape în memorie
    e notată și nu mai e încercată la lungimile următoare."""
    compilata = compilata or torch.compile(atentie_naiva)
    variante = {
        "naivă, eager": atentie_naiva,
        "naivă, compilată": compilata,
        "SDPA": lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
    }
    renuntate: dict[str, int] = {}
    randuri = []
    for lungime in marimi.lungimi_naive:
        rand = RandNaiv(lungime, octeti_scoruri=marimi.lot * marimi.capete * lungime * lungime * marimi_element(marimi),
                        octeti_iesire=marimi.lot * marimi.capete * lungime * marimi.dim_cap * marimi_element(marimi))
        randuri.append(rand)
        try:
            q, k, v = qkv(marimi, lungime, dispozitiv)
        except Exception as eroare:  # noqa: BLE001 - nici intrările nu mai încap
            if not _e_lipsa_de_memorie(eroare):
                raise
            for nume in variante:
                rand.nu_incape[nume] = "intrările nu mai încap"
            break
        de_masurat = {}
        for nume, functie in variante.items():
            if nume in renuntate:
                rand.nu_incape[nume] = f"nu încăpea deja la {format_numar(renuntate[nume])}"
                continue
            try:
                with torch.no_grad():
                    functie(q, k, v)  # încălzirea (și compilarea), în afara cronometrului
                if dispozitiv == "cuda":
                    rand.memorie[nume] = _varf_memorie(functie, q, k, v)
                de_masurat[nume] = functie
            except Exception as eroare:  # noqa: BLE001
                if not _e_lipsa_de_memorie(eroare):
                    raise
                renuntate[nume] = lungime
                rand.nu_incape[nume] = "nu încape în memoria GPU-ului"
                if dispozitiv == "cuda":
                    torch.cuda.empty_cache()
        if de_masurat:
            with torch.no_grad():
                comparatie = compara(de_masurat, q, k, v, runde=5, timp_minim_s=0.2)
            rand.timpi = {nume: comparatie[nume] for nume in de_masurat}
        del q, k, v
        if dispozitiv == "cuda":
            torch.cuda.empty_cache()
    return randuri


def marimi_element(marimi: Marimi) -> int:
    """Octeții unui element în tipul de date al mărimilor."""
    return torch.empty((), dtype=marimi.tip).element_size()


def _tabel(antet: Sequence[str], randuri: Sequence[Sequence[str]]) -> str:
    latimi = [max(len(str(r[i])) for r in [antet, *randuri]) for i in range(len(antet))]
    linii = ["  ".join(str(c).ljust(l) for c, l in zip(antet, latimi)).rstrip()]
    linii += ["  ".join(str(c).ljust(l) for c, l in zip(r, latimi)).rstrip() for r in randuri]
    return "\n".join(linii)


def _diferenta(valoare: float) -> str:
    """O diferență maximă, scrisă lizibil: „cu mai puțin de 0,001” pentru rotunjiri, altfel
    „cu cel mult 0,051”."""
    return "cu mai puțin de 0,001" if valoare < 1e-3 else f"cu cel mult {format_numar(valoare, 3)}"


def _cheie(text: str, fara_cifre: bool = False) -> str:
    """O cheie de cifră din text: litere ASCII fără diacritice, cuvintele legate cu „_”
    („Flex, fereastra 512” → „flex_fereastra”, cu `fara_cifre`)."""
    import unicodedata

    simplu = unicodedata.normalize("NFKD", text.lower()).encode("ascii", "ignore").decode()
    if fara_cifre:
        simplu = re.sub(r"\d+", " ", simplu)
    return re.sub(r"[^a-z0-9]+", "_", simplu).strip("_")


def tolerante(tip: torch.dtype) -> dict:
    """Toleranțele lui `torch.testing.assert_close` pentru atenția în `tip`: cele implicite în
    float32, 2e-2 în bfloat16 și float16 (două kernel-uri diferite rotunjesc altfel)."""
    return {} if tip == torch.float32 else {"atol": 2e-2, "rtol": 2e-2}


def arata_atentia_naiva(randuri: Sequence[RandNaiv], dispozitiv: str) -> None:
    """Tabelul și graficul experimentului cu atenția naivă, apoi concluziile, scoase din cifre."""
    import matplotlib.pyplot as plt

    from ..grafice import arata
    from ..masurare import raport_din

    nume = ["naivă, eager", "naivă, compilată", "SDPA"]
    antet = ["lungimea", "matricea scorurilor"] + [f"{n}" for n in nume]
    if dispozitiv == "cuda":
        antet += [f"memorie, {n}" for n in nume]
    tabel = []
    for r in randuri:
        rand = [format_numar(r.lungime), format_octeti(r.octeti_scoruri)]
        rand += [format_timp(r.timpi[n].mediana_s) if n in r.timpi else "nu încape" for n in nume]
        if dispozitiv == "cuda":
            rand += [format_octeti(r.memorie[n]) if n in r.memorie else "—" for n in nume]
        tabel.append(rand)
    print(_tabel(antet, tabel))
    if dispozitiv != "cuda":
        print("Pe procesor, memoria nu e măsurată (PyTorch ține socoteala vârfului doar pe GPU): coloana „matricea "
              "scorurilor” dă mărimea matricei, calculată din forme (lot × capete × S × S × octeții unui element). "
              "Graficul din dreapta o pune lângă ieșirea atenției (lot × capete × S × d), tot calculată: atenția naivă "
              "ține în memorie cel puțin matricea, un kernel fuzionat ca SDPA doar ceva de mărimea ieșirii. "
              + cifre.despre_referinta("vârful de memorie măsurat pe GPU", "10.memorie"))

    figura, axe = plt.subplots(1, 2, figsize=(12, 4))
    ax = axe[0]
    for n in nume:
        puncte = [(r.lungime, r.timpi[n].mediana_s * 1e3) for r in randuri if n in r.timpi]
        if puncte:
            ax.plot(*zip(*puncte), marker="o", label=n)
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("lungimea secvenței S")
    ax.set_ylabel("timp pe apel (ms, mediana)")
    ax.set_title("timpul atenției cauzale")
    ax.legend()
    ax = axe[1]
    if dispozitiv == "cuda":
        for n in nume:
            puncte = [(r.lungime, r.memorie[n] / 2**20) for r in randuri if n in r.memorie]
            if puncte:
                ax.plot(*zip(*puncte), marker="o", label=f"{n} (măsurat)")
    ax.plot([r.lungime for r in randuri], [r.octeti_scoruri / 2**20 for r in randuri], linestyle="--",
            color="gray", marker="s" if dispozitiv != "cuda" else None, label="o matrice S×S (calculată)")
    ax.plot([r.lungime for r in randuri], [r.octeti_iesire / 2**20 for r in randuri], linestyle=":",
            color="black", marker="^" if dispozitiv != "cuda" else None, label="ieșirea, S × d (calculată)")
    ax.set_xscale("log", base=2)
    ax.set_yscale("log")
    ax.set_xlabel("lungimea secvenței S")
    ax.set_ylabel("MiB" + (" peste intrări" if dispozitiv == "cuda" else ""))
    ax.set_title("memoria" if dispozitiv == "cuda" else "memoria, calculată din forme (pe procesor nu se măsoară)")
    ax.legend()
    figura.tight_layout()
    arata(figura)

    print(_crestere_la_dublare(randuri, "naivă, eager"))
    comune = [r for r in randuri if all(n in r.timpi for n in nume)]
    if comune:
        r = comune[-1]
        S = format_numar(r.lungime)
        print(f"La S = {S}:")
        print("  " + concluzie_accelerare(raport_din(r.timpi["naivă, eager"], r.timpi["SDPA"]), "SDPA", "atenția naivă eager",
                                            ce_se_compara="variante"))
        print("  " + concluzie_accelerare(raport_din(r.timpi["naivă, eager"], r.timpi["naivă, compilată"]),
                              "Atenția naivă compilată", "cea eager"))
        cifre.inregistreaza(f"10.naiva_fata_de_sdpa_S{r.lungime}", raport_din(r.timpi["naivă, eager"], r.timpi["SDPA"]), "×",
                            f"SDPA față de atenția naivă eager, S = {S}")
    if dispozitiv == "cuda":
        cu_memorie = [r for r in randuri if "naivă, eager" in r.memorie and "SDPA" in r.memorie]
        if len(cu_memorie) >= 2:
            a, b = cu_memorie[-2], cu_memorie[-1]
            crestere_naiva = b.memorie["naivă, eager"] / max(a.memorie["naivă, eager"], 1)
            crestere_sdpa = b.memorie["SDPA"] / max(a.memorie["SDPA"], 1)
            print(f"  De la S = {format_numar(a.lungime)} la S = {format_numar(b.lungime)} ({cu_unitate(b.lungime / a.lungime, '×')}), "
                  f"vârful atenției naive crește de {cu_unitate(crestere_naiva, '×')}, al lui SDPA de {cu_unitate(crestere_sdpa, '×')}.")
            cifre.inregistreaza(f"10.memorie_naiva_S{b.lungime}_mib", b.memorie["naivă, eager"] / 2**20, "MiB",
                                f"vârful de memorie al atenției naive eager, S = {format_numar(b.lungime)}")
            cifre.inregistreaza(f"10.memorie_sdpa_S{b.lungime}_mib", b.memorie["SDPA"] / 2**20, "MiB",
                                f"vârful de memorie al lui SDPA, S = {format_numar(b.lungime)}")
    primul = next((r for r in randuri if "naivă, eager" in r.nu_incape), None)
    if primul is not None:
        print(f"  Atenția naivă nu mai încape de la S = {format_numar(primul.lungime)}: matricea scorurilor singură ar avea "
              f"{format_octeti(primul.octeti_scoruri)}.")
        if "SDPA" in primul.timpi:
            print(f"  SDPA rulează și acolo: {format_timp(primul.timpi['SDPA'].mediana_s)} pe apel.")
        cifre.inregistreaza("10.naiva_nu_incape_de_la", primul.lungime, "", "lungimea de la care atenția naivă nu mai încape")
    else:
        print(f"  Până la S = {format_numar(randuri[-1].lungime)}, toate variantele au încăput în memorie.")
    if dispozitiv != "cuda" and cifre.are_referinta("10.memorie"):
        cifre.afiseaza_referinta("10.memorie")


# ---------------------------------------------------------------------------------------------
# Masca pe blocuri
# ---------------------------------------------------------------------------------------------


def _crestere_la_dublare(randuri: Sequence[RandNaiv], nume: str) -> str:
    """Cât a crescut timpul variantei `nume` la fiecare dublare a lui S și ce urmează din asta: aproape
    de 4× (cât perechile) doar unde lucrul cu S² domină; la lungimi mici, costul fix al apelului îl ascunde."""
    perechi = [(a, b) for a, b in zip(randuri, randuri[1:])
               if b.lungime == 2 * a.lungime and nume in a.timpi and nume in b.timpi]
    if not perechi:
        return "Nu sunt două lungimi consecutive, una dublul celeilalte, ca să se vadă creșterea la o dublare."
    factori = [b.timpi[nume].mediana_s / a.timpi[nume].mediana_s for a, b in perechi]
    lista = ", ".join(f"{format_numar(a.lungime)} → {format_numar(b.lungime)}: {cu_unitate(f, '×')}"
                      for (a, b), f in zip(perechi, factori))
    text = f"La fiecare dublare a lui S, timpul variantei „{nume}” s-a înmulțit așa: {lista}. "
    if min(factori) < 1:
        return text + ("La o dublare timpul chiar a scăzut: la lungimile acestea, timpul e mic și îl decide zgomotul "
                       "măsurării, nu numărul de perechi.")
    if factori[-1] > 6:
        return text + ("La ultima dublare, timpul a crescut mult mai mult decât perechile (4×): la dimensiunile astea "
                       "îl decid și alte efecte (datele care nu mai încap în memoria cache a procesorului, zgomotul "
                       "măsurării), nu doar numărul de perechi.")
    if factori[-1] >= 3:
        return text + ("La ultima dublare, creșterea e aproape de 4×, cât cresc perechile: lucrul cu S² domină "
                       "timpul.")
    return text + ("Creșterea rămâne sub 3×, deși perechile cresc de 4 ori: la lungimile acestea, costul fix al "
                   "apelului și lucrul proporțional cu S încă cântăresc; creșterea cu pătratul lui S apare la "
                   "secvențe mai lungi.")


def stari_blocuri(masca: "BlockMask", lot: int = 0, cap: int = 0) -> torch.Tensor:
    """Starea fiecărei perechi de blocuri (bloc de întrebări × bloc de chei) a măștii, pentru
    `lot` și `cap`: 0 sărit (toate perechile interzise), 1 parțial (masca se aplică element cu
    element), 2 plin (toate perechile permise: kernel-ul nici nu mai evaluează masca)."""
    b, h = min(lot, masca.kv_num_blocks.shape[0] - 1), min(cap, masca.kv_num_blocks.shape[1] - 1)
    rand_q = masca.kv_indices.shape[-2]
    blocuri_q = math.ceil(masca.seq_lengths[0] / masca.BLOCK_SIZE[0])
    blocuri_kv = math.ceil(masca.seq_lengths[1] / masca.BLOCK_SIZE[1])
    stari = torch.zeros(blocuri_q, blocuri_kv, dtype=torch.int8)
    numar, indici = masca.kv_num_blocks[b, h].cpu(), masca.kv_indices[b, h].cpu()
    for i in range(min(blocuri_q, rand_q)):
        for j in indici[i, : int(numar[i])].tolist():
            if j < blocuri_kv:
                stari[i, j] = 1
    if masca.full_kv_num_blocks is not None:
        numar, indici = masca.full_kv_num_blocks[b, h].cpu(), masca.full_kv_indices[b, h].cpu()
        for i in range(min(blocuri_q, rand_q)):
            for j in indici[i, : int(numar[i])].tolist():
                if j < blocuri_kv:
                    stari[i, j] = 2
    return stari


def tipareste_masca(masca: "BlockMask") -> None:
    """Masca pe blocuri așa cum o desenează PyTorch (`print(masca)`: „██” pentru fiecare bloc
    vizitat), cu antetul scris în formatul cursului (raritatea cu virgulă zecimală)."""
    desen = [linie for linie in str(masca).splitlines()[1:] if linie.strip() not in ("", ")")]
    print(f"BlockMask: forma {tuple(masca.shape)}, blocuri de {masca.BLOCK_SIZE[0]}×{masca.BLOCK_SIZE[1]}, "
          f"raritatea {format_procent(masca.sparsity() / 100, 1)}")
    print("\n".join(desen))


def fractiunea_calculata(masca: "BlockMask") -> float:
    """Ce parte din perechile de blocuri vizitează kernel-ul (parțiale și pline): 1 − raritatea."""
    return 1.0 - masca.sparsity() / 100.0


def grafic_masca(masca: "BlockMask", titlu: str = "", ax=None):
    """Masca pe blocuri ca o grilă: alb — bloc sărit, portocaliu — parțial, albastru — plin."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap
    from matplotlib.patches import Patch

    stari = stari_blocuri(masca)
    if ax is None:
        _, ax = plt.subplots(figsize=(4.5, 4.5))
    culori = ListedColormap(["#ffffff", "#f5a623", "#2f6db5"])
    ax.imshow(stari.numpy(), cmap=culori, vmin=0, vmax=2, interpolation="nearest")
    ax.set_xlabel(f"blocul de chei ({masca.BLOCK_SIZE[1]} de poziții)")
    ax.set_ylabel(f"blocul de întrebări ({masca.BLOCK_SIZE[0]} de poziții)")
    pline, partiale = int((stari == 2).sum()), int((stari == 1).sum())
    ax.set_title((titlu + "\n" if titlu else "") + f"raritate {format_procent(masca.sparsity() / 100, 1)}")
    ax.legend(handles=[Patch(facecolor="#2f6db5", label=f"plin ({pline})"),
                       Patch(facecolor="#f5a623", label=f"parțial ({partiale})"),
                       Patch(facecolor="#ffffff", edgecolor="gray", label=f"sărit ({stari.numel() - pline - partiale})")],
              loc="upper right", fontsize=8, framealpha=0.9)
    return ax


def arata_mastile(masti: Mapping[str, "BlockMask"]) -> None:
    """Măștile pe blocuri, una lângă alta, cu raritatea fiecăreia."""
    import matplotlib.pyplot as plt

    from ..grafice import arata

    figura, axe = plt.subplots(1, len(masti), figsize=(4.6 * len(masti), 4.6), squeeze=False)
    for ax, (nume, masca) in zip(axe[0], masti.items()):
        grafic_masca(masca, nume, ax=ax)
    figura.tight_layout()
    arata(figura)
    for nume, masca in masti.items():
        print(f"{nume}: raritatea {format_procent(masca.sparsity() / 100, 1)}, kernel-ul vizitează "
              f"{format_procent(fractiunea_calculata(masca), 1)} din perechile de blocuri.")


def exploreaza_mastile(masti: Mapping[str, Callable[[int], Callable]], lungimi: Sequence[int], ferestre: Sequence[int]) -> None:
    """Explorator: alegi masca (o funcție lățime → mask_mod, din notebook), lungimea și lățimea
    ferestrei; vezi masca pe blocuri, raritatea ei și ce parte din lucrul măștii cauzale fără fereastră
    rămâne de făcut. Măștile se construiesc pe procesor (`create_block_mask`), fără compilare."""
    import matplotlib.pyplot as plt

    from ..explorator import Control, exploreaza
    from ..grafice import arata

    def actualizeaza(masca: str, lungime: int, fereastra: int):
        bloc = create_block_mask(masti[masca](fereastra), None, None, lungime, lungime, device="cpu")
        cauzala = create_block_mask(lambda b, h, q, kv: q >= kv, None, None, lungime, lungime, device="cpu")
        figura, ax = plt.subplots(figsize=(5, 5))
        grafic_masca(bloc, f"{masca}, S = {format_numar(lungime)}", ax=ax)
        arata(figura)
        parte = fractiunea_calculata(bloc) / fractiunea_calculata(cauzala)
        print(f"Kernel-ul vizitează {format_procent(fractiunea_calculata(bloc), 1)} din perechile de blocuri; "
              f"față de masca cauzală fără fereastră, {format_procent(parte, 1)} din lucru.")

    optiuni_masti = list(masti)
    exploreaza(
        actualizeaza,
        masca=Control("masca", optiuni_masti, optiuni_masti[-1]),
        lungime=Control("S", list(lungimi), lungimi[len(lungimi) // 2]),
        fereastra=Control("fereastra", list(ferestre), ferestre[len(ferestre) // 2]),
    )


def compara_fara_compilare(alegere: AlegereFlex, masca: "BlockMask", flex_compilat: Callable) -> tuple[Comparatie, dict]:
    """FlexAttention fără `torch.compile` (calea nefuzionată, care calculează toată matricea
    scorurilor), compilată și SDPA, cauzale toate, la lungimea de lucru: timpii (intercalat) și,
    pe GPU, vârful de memorie al fiecăreia."""
    marimi, dispozitiv = alegere.marimi, alegere.dispozitiv
    q, k, v = qkv(marimi, masca.seq_lengths[0], dispozitiv)

    def necompilata(q, k, v):
        with fara_avertismentul_necompilat():
            return flex_attention(q, k, v, block_mask=masca)

    variante = {
        "Flex, fără torch.compile": necompilata,
        "Flex, compilată": lambda q, k, v: flex_compilat(q, k, v, block_mask=masca),
        "SDPA": lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True),
    }
    # fără torch.no_grad: intrările nu cer gradienți, iar modul gradienților e o gardă a lui Dynamo
    # (sub no_grad, `flex_compilat` din notebook s-ar compila încă o dată)
    memorie = {}
    for nume, functie in variante.items():
        functie(q, k, v)
        if dispozitiv == "cuda":
            memorie[nume] = _varf_memorie(functie, q, k, v, fara_gradienti=False)
    comparatie = compara(variante, q, k, v, runde=5, timp_minim_s=0.3)
    return comparatie, memorie


def arata_fara_compilare(comparatie: Comparatie, memorie: dict) -> None:
    """Graficul timpilor, memoria (pe GPU) și verdictul: cât câștigă fuziunea."""
    from ..grafice import arata, grafic_variante

    grafic_variante(comparatie.masuratori, "aceeași atenție cauzală", logaritmic=True)
    arata()
    for nume, octeti in memorie.items():
        print(f"  vârful de memorie, {nume}: {format_octeti(octeti)}")
    raport = comparatie.accelerare("Flex, fără torch.compile", "Flex, compilată")
    print(concluzie_accelerare(raport, "FlexAttention compilată", "cea necompilată"))
    cifre.inregistreaza("10.flex_compilata_fata_de_necompilata", raport, "×", "FlexAttention compilată față de cea necompilată")


# ---------------------------------------------------------------------------------------------
# Debitul: TFLOP/s numărând doar ce păstrează masca
# ---------------------------------------------------------------------------------------------


def perechi_permise(mask_mod: Callable, lungime: int, dispozitiv: str = "cpu", rand_bloc: int = 1024) -> int:
    """Câte perechi (întrebare, cheie) permite `mask_mod` pe o secvență de `lungime`: lucrul util
    al atenției. Numărate din masca densă, pe felii de `rand_bloc` rânduri (memoria rămâne
    proporțională cu S, nu cu S×S)."""
    total = 0
    chei = torch.arange(lungime, device=dispozitiv)
    zero = torch.zeros((), dtype=torch.long, device=dispozitiv)
    for inceput in range(0, lungime, rand_bloc):
        intrebari = torch.arange(inceput, min(lungime, inceput + rand_bloc), device=dispozitiv)
        total += int(mask_mod(zero, zero, intrebari[:, None], chei[None, :]).sum())
    return total


def flops_atentie(marimi: Marimi, perechi: int) -> float:
    """Operațiile în virgulă mobilă ale pasului înainte: două produse de matrice (Q·Kᵀ și P·V),
    câte 2 × dim_cap operații pe pereche păstrată, pe fiecare lot și cap."""
    return 4.0 * marimi.lot * marimi.capete * marimi.dim_cap * perechi


@dataclass
class Debit:
    """O lungime a comparației: timpii variantelor (măsurați împreună), perechile utile și
    TFLOP/s-ul fiecăreia, raritatea fiecărei măști."""

    lungime: int
    comparatie: Comparatie
    perechi: dict
    tflops: dict
    raritate: dict


def masoara_debitul(alegere: AlegereFlex, masti: Mapping[str, Callable], flex_compilat: Callable | None = None,
                    lungimi: Sequence[int] | None = None) -> list[Debit]:
    """Pentru fiecare lungime: SDPA cauzală și FlexAttention compilată cu fiecare mască din
    `masti` (nume → mask_mod), măsurate intercalat (`masurare.compara`). Măștile pe blocuri se
    construiesc o dată pe lungime, în afara cronometrului. TFLOP/s-ul unei variante numără doar
    perechile pe care masca ei le permite (SDPA cauzală: S(S+1)/2 pe cap)."""
    from ..masurare_compilare import invelis_nou

    marimi, dispozitiv = alegere.marimi, alegere.dispozitiv
    # un înveliș nou, cu cache-ul lui Dynamo: lungimile și măștile de aici nu se adună la compilările notebook-ului;
    # `dynamic=False`: fiecare lungime primește kernel-ul ei, specializat pe S, ca într-un model cu lungimea fixă
    # (altfel, la a doua lungime, formele dinamice automate ar recompila kernel-ul cu S simbolic)
    flex_compilat = flex_compilat or torch.compile(invelis_nou(flex_attention, "flex_debit"), dynamic=False)
    rezultate = []
    for lungime in lungimi or marimi.lungimi:
        q, k, v = qkv(marimi, lungime, dispozitiv)
        variante = {"SDPA, cauzală": lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True)}
        perechi = {"SDPA, cauzală": lungime * (lungime + 1) // 2}
        raritate = {}
        for nume, mask_mod in masti.items():
            bloc = create_block_mask(mask_mod, None, None, lungime, lungime, device=dispozitiv)
            variante[f"Flex, {nume}"] = lambda q, k, v, bloc=bloc: flex_compilat(q, k, v, block_mask=bloc)
            perechi[f"Flex, {nume}"] = perechi_permise(mask_mod, lungime, dispozitiv)
            raritate[f"Flex, {nume}"] = bloc.sparsity() / 100
        with torch.no_grad():  # compilările cad în încălzirea lui `compara`, înaintea cronometrului
            comparatie = compara(variante, q, k, v, runde=7, timp_minim_s=0.3)
        tflops = {n: flops_atentie(marimi, perechi[n]) / comparatie[n].mediana_s / 1e12 for n in variante}
        rezultate.append(Debit(lungime, comparatie, perechi, tflops, raritate))
        del q, k, v
    return rezultate


def _cu_doua_cifre(valoare: float) -> str:
    """Un număr mic cu cel puțin două cifre semnificative („0,00046”, nu „0,000”); peste 1, cu o zecimală."""
    if valoare >= 1 or valoare <= 0:
        return format_numar(valoare, 1)
    return format_numar(valoare, max(1, 1 - math.floor(math.log10(valoare))))


def arata_debitul(rezultate: Sequence[Debit], alegere: AlegereFlex) -> None:
    """Tabelul (timp, TFLOP/s, procent din SDPA), graficul TFLOP/s pe lungimi și verdictele:
    FlexAttention cauzală față de SDPA (ținta: 85% pe un GPU mare) și fereastra față de SDPA
    cauzală fără fereastră. Verdictele vin din rapoartele de rundă (`Raport`), cu zgomotul spus."""
    import matplotlib.pyplot as plt

    from ..grafice import arata

    nume = list(rezultate[0].comparatie.masuratori)
    tabel = []
    for d in rezultate:
        for n in nume:
            # viteza față de SDPA: același raport al rundelor din care vin verdictele de mai jos
            viteza = "—" if n == "SDPA, cauzală" else format_procent(d.comparatie.accelerare("SDPA, cauzală", n).mediana)
            tabel.append([format_numar(d.lungime), n, format_timp(d.comparatie[n].mediana_s),
                          _cu_doua_cifre(d.tflops[n]), viteza,
                          format_procent(d.raritate[n], 1) if n in d.raritate else "—"])
    print(_tabel(["S", "varianta", "timp", "TFLOP/s util", "viteza față de SDPA", "raritatea măștii"], tabel))
    print("Viteza față de SDPA e raportul timpilor, mediana rapoartelor din fiecare rundă (la masca cauzală, e chiar "
          "partea din debitul SDPA); verdictele de mai jos pleacă de la aceleași rapoarte.")

    figura, ax = plt.subplots(figsize=(8, 4))
    latime = 0.8 / len(nume)
    for i, n in enumerate(nume):
        pozitii = [j + i * latime for j in range(len(rezultate))]
        ax.bar(pozitii, [d.tflops[n] for d in rezultate], width=latime, label=n)
    ax.set_xticks([j + latime * (len(nume) - 1) / 2 for j in range(len(rezultate))],
                  [f"S = {format_numar(d.lungime)}" for d in rezultate])
    ax.set_ylabel("TFLOP/s util (mai mult e mai bine)")
    ax.set_title(f"atenția pe {'GPU' if alegere.pe_gpu else 'procesor'}: doar perechile permise de mască")
    ax.legend()
    figura.tight_layout()
    arata(figura)

    for d in rezultate:
        S = format_numar(d.lungime)
        print(f"S = {S}:")
        for n in nume[1:]:
            raport = d.comparatie.accelerare("SDPA, cauzală", n)
            if "cauzal" in n:
                parte = raport.mediana
                print(f"  {n}: {format_procent(parte)} din debitul SDPA, la aceeași mască cauzală "
                      f"({raport.interval()}); ținta pe un GPU mare: {format_procent(TINTA_FATA_DE_SDPA)}.")
                if alegere.pe_gpu:
                    atinsa = raport.capete_verdict[0] >= TINTA_FATA_DE_SDPA
                    sub = raport.capete_verdict[1] < TINTA_FATA_DE_SDPA
                    print("  " + ("ținta e atinsă în toate rundele din mijloc." if atinsa else
                                  "ținta nu e atinsă." if sub else "ținta e atinsă doar în unele runde: aici decide zgomotul."))
            else:
                print("  " + concluzie_accelerare(raport, n, "SDPA cauzală fără fereastră", ce_se_compara="variante"))
                if alegere.pe_gpu and d.lungime >= LUNGIME_TINTA_FEREASTRA:
                    print("  ținta (fereastra mai rapidă decât SDPA cauzală de la S = "
                          f"{format_numar(LUNGIME_TINTA_FEREASTRA)} în sus): "
                          + ("atinsă în toate rundele din mijloc." if raport.mai_rapid and raport.capete_verdict[0] > 1
                             else "nu e atinsă." if raport.capete_verdict[1] <= 1
                             else "atinsă doar în unele runde: aici decide zgomotul."))
            cheie = _cheie(n, fara_cifre=True)
            cifre.inregistreaza(f"10.{cheie}_fata_de_sdpa_S{d.lungime}", raport, "×", f"{n} față de SDPA cauzală, S = {S}")
            cifre.inregistreaza(f"10.{cheie}_tflops_S{d.lungime}", d.tflops[n], "TFLOP/s", f"{n}, TFLOP/s util, S = {S}")
        cifre.inregistreaza(f"10.sdpa_tflops_S{d.lungime}", d.tflops["SDPA, cauzală"], "TFLOP/s", f"SDPA cauzală, TFLOP/s, S = {S}")
    if not alegere.pe_gpu:
        print("Pe procesor, capitolul nu judecă țintele: ele sunt ale kernel-ului Triton, pe un GPU. "
              + cifre.despre_referinta("debitul FlexAttention pe GPU", "10.sdpa_tflops"))


# ---------------------------------------------------------------------------------------------
# Compilarea și recompilările
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Caz:
    """Un apel din experimentul recompilărilor: câte grafuri noi a compilat și cât a durat."""

    descriere: str
    recompilari: int
    secunde: float


def numara_recompilarile(cazuri: Mapping[str, Callable[[], object]], pe_gpu: bool) -> list[Caz]:
    """Rulează fiecare caz o dată, în ordine, și numără grafurile noi compilate de Dynamo
    (`torch._dynamo.utils.counters["stats"]["unique_graphs"]`) și timpul apelului. Cazurile rulează
    așa cum sunt (fără `torch.no_grad`): modul gradienților e și el o gardă."""
    from torch._dynamo.utils import counters

    rezultate = []
    for descriere, apel in cazuri.items():
        inainte = counters["stats"]["unique_graphs"]
        if pe_gpu:
            sincronizeaza()
        start = time.perf_counter()
        apel()
        if pe_gpu:
            sincronizeaza()
        rezultate.append(Caz(descriere, int(counters["stats"]["unique_graphs"] - inainte), time.perf_counter() - start))
    return rezultate


def arata_recompilarile(cazuri: Sequence[Caz]) -> None:
    """Tabelul recompilărilor: ce s-a schimbat, câte grafuri noi, cât a durat apelul."""
    print(_tabel(["ce s-a schimbat", "grafuri noi", "timpul apelului"],
                 [[c.descriere, format_numar(c.recompilari), format_timp(c.secunde)] for c in cazuri]))
    for c in cazuri:
        cheie = _cheie(c.descriere)[:40]
        cifre.inregistreaza(f"10.recompilari_{cheie}", c.recompilari, "", f"grafuri noi: {c.descriere}")
        if c.recompilari:
            cifre.inregistreaza(f"10.compilare_{cheie}_s", c.secunde, "s", f"apelul care a compilat: {c.descriere}",
                                depinde_de_procesor=True)


# ---------------------------------------------------------------------------------------------
# Pasul înapoi
# ---------------------------------------------------------------------------------------------


@dataclass
class Inapoi:
    """Rezultatul încercării pasului înapoi: a mers sau nu, diferența gradienților față de SDPA,
    timpii înainte+înapoi (pe GPU) și explicația."""

    merge: bool
    explicatie: str
    diferenta: float | None = None
    comparatie: Comparatie | None = None


def incearca_inapoi(alegere: AlegereFlex, mask_mod: Callable, flex_compilat: Callable | None = None) -> Inapoi:
    """Pasul înapoi al FlexAttention compilate (cu masca cauzală `mask_mod`), față de SDPA
    cauzală: gradienții comparați, apoi înainte+înapoi măsurat pentru amândouă. Pe procesor,
    FlexAttention n-are pas înapoi: eroarea e prinsă și explicată."""
    from ..masurare_compilare import invelis_nou

    marimi, dispozitiv = alegere.marimi, alegere.dispozitiv
    flex_compilat = flex_compilat or torch.compile(invelis_nou(flex_attention, "flex_inapoi"))
    lungime = marimi.lungime
    q, k, v = qkv(marimi, lungime, dispozitiv, cere_grad=True)
    bloc = create_block_mask(mask_mod, None, None, lungime, lungime, device=dispozitiv)
    try:
        flex_compilat(q, k, v, block_mask=bloc).float().square().mean().backward()
    except NotImplementedError as eroare:
        return Inapoi(False, "Pe procesor, FlexAttention are doar pasul înainte: pasul înapoi aruncă "
                             f"NotImplementedError („{str(eroare).splitlines()[0][:160]}”). Antrenarea cu FlexAttention "
                             "cere un GPU. " + cifre.despre_referinta("pasul înapoi pe GPU", "10.inapoi"))
    except Exception as eroare:  # noqa: BLE001 - un GPU pe care șablonul pasului înapoi nu încape
        if dispozitiv != "cuda":
            raise
        return Inapoi(False, f"Pe acest GPU, pasul înapoi al FlexAttention n-a mers ({_explica_esecul(str(eroare))}): "
                             f"„{_ultima_linie_utila(str(eroare))[:200]}”. "
                             + cifre.despre_referinta("pasul înapoi pe GPU", "10.inapoi"))
    gradienti_flex = [t.grad.detach().clone() for t in (q, k, v)]
    for t in (q, k, v):
        t.grad = None
    F.scaled_dot_product_attention(q, k, v, is_causal=True).float().square().mean().backward()
    diferenta = max(float((a.float() - t.grad.float()).abs().max()) for a, t in zip(gradienti_flex, (q, k, v)))

    def pas(functie):
        def un_pas(q, k, v):
            for t in (q, k, v):
                t.grad = None
            functie(q, k, v).float().square().mean().backward()
        return un_pas

    comparatie = compara({
        "SDPA, înainte + înapoi": pas(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True)),
        "Flex, înainte + înapoi": pas(lambda q, k, v: flex_compilat(q, k, v, block_mask=bloc)),
    }, q, k, v, runde=5, timp_minim_s=0.3)
    return Inapoi(True, "Pasul înapoi e generat și el de Inductor, tot dintr-un șablon Triton, cu aceeași mască pe blocuri.",
                  diferenta, comparatie)


def arata_inapoi(rezultat: Inapoi) -> None:
    """Ce a ieșit la pasul înapoi: gradienții față de SDPA și timpii, sau de ce nu există."""
    print(rezultat.explicatie)
    if not rezultat.merge:
        if cifre.are_referinta("10.inapoi"):
            cifre.afiseaza_referinta("10.inapoi")
        return
    print(f"Gradienții q, k, v diferă de cei ai lui SDPA {_diferenta(rezultat.diferenta)} "
          "(rotunjirile tipului de date).")
    print(rezultat.comparatie)
    raport = rezultat.comparatie.accelerare("SDPA, înainte + înapoi", "Flex, înainte + înapoi")
    print(f"FlexAttention, înainte + înapoi: {format_procent(raport.mediana)} din viteza SDPA ({raport.interval()}).")
    cifre.inregistreaza("10.inapoi_flex_fata_de_sdpa", raport, "×", "FlexAttention înainte + înapoi, față de SDPA")


# ---------------------------------------------------------------------------------------------
# În kernel
# ---------------------------------------------------------------------------------------------

_SEMNE_SARITURA = re.compile(r"kv_num_blocks|kv_indices|kv_indice|KV_NUM_BLKS|KV_IDX|SPARSE_KV_BLOCK|IS_FULL_BLOCKS")


@dataclass(frozen=True)
class KernelAtentie:
    """Kernel-ul generat de Inductor pentru FlexAttention: numele, limbajul, numărul de linii și
    liniile (numerotate) unde apare saltul peste blocuri."""

    nume: str
    limbaj: str
    linii: int
    saritura: tuple[tuple[int, str], ...]
    sursa: str
    #: Ce spune codul generat despre șablonul din care vine kernel-ul: linia care îl arată (decoratorul
    #: de șablon Triton, sau numele kernel-ului C++) și dosarul șabloanelor din torch-ul instalat.
    sablon: str = ""


def kernelul_atentiei(functie: Callable, *argumente) -> KernelAtentie:
    """Compilează `functie(*argumente)` din nou (fără cache) și întoarce kernel-ul atenției din
    codul scris de Inductor: cel mai lung kernel cu „flex_attention” în nume (pe GPU, șablonul
    Triton; pe procesor, șablonul C++)."""
    from .cap03_fuziune import cod_generat, kerneluri_generate

    kerneluri = kerneluri_generate(cod_generat(functie, *argumente))
    ai_atentiei = [k for k in kerneluri if "flex" in k.nume] or kerneluri
    kernel = max(ai_atentiei, key=lambda k: len(k.sursa))
    linii = kernel.sursa.splitlines()
    saritura = tuple((i + 1, linie.strip()) for i, linie in enumerate(linii)
                     if _SEMNE_SARITURA.search(linie) and "Stride" not in linie)
    return KernelAtentie(kernel.nume, kernel.limbaj, len(linii), saritura, kernel.sursa, _sablonul(kernel))


def _sablonul(kernel) -> str:
    """Propoziția despre șablon, scoasă din codul generat: pe GPU, decoratorul `template` al lui
    Triton (un kernel „tem”, de la *template*, nu unul de fuziune „poi”/„red”); pe procesor, numele
    kernel-ului C++ (`cpp_fused_flex_attention…`, făcut de șablonul C++ al lui FlexAttention)."""
    import torch._inductor as inductor
    from pathlib import Path

    dosar = Path(inductor.__file__).parent / "kernel" / "flex"
    unde = " Șabloanele sunt în torch-ul instalat, în `torch/_inductor/kernel/flex/`." if dosar.is_dir() else ""
    if kernel.limbaj == "triton":
        linie = next((l.strip() for l in kernel.sursa.splitlines() if "template" in l and "@" in l), "")
        eticheta = "„tem” din numele kernel-ului" if "_tem_" in kernel.nume else "decoratorul de șablon"
        return (f"Kernel-ul vine dintr-un șablon (template), nu din fuziunea automată a operațiilor: {eticheta}"
                + (f" și linia `{linie[:100]}`" if linie else "") + " o arată." + unde)
    return (f"Kernel-ul vine din șablonul C++ al lui FlexAttention pentru procesor: numele lui, `{kernel.nume}`, "
            "o spune, iar produsele de matrice din el sunt micro-kernel-uri de produs de matrice (`micro_gemm`) puse "
            "de șablon, nu ies din fuziunea automată a operațiilor." + unde)


def arata_kernelul(kernel: KernelAtentie, maxim: int = 14) -> None:
    """Primele `maxim` linii în care kernel-ul citește masca pe blocuri (numărul de blocuri de
    vizitat și indicii lor) — locul unde sare peste blocurile goale."""
    if kernel.sablon:
        print(kernel.sablon)
    print(f"{kernel.nume} ({'Triton' if kernel.limbaj == 'triton' else 'C++'}): "
          f"{cu_substantiv(kernel.linii, 'linie', 'linii')}; liniile cu masca pe blocuri:")
    for numar, linie in kernel.saritura[:maxim]:
        print(f"  {numar:>5}  {linie[:150]}")
    if len(kernel.saritura) > maxim:
        print(f"  … încă {cu_substantiv(len(kernel.saritura) - maxim, 'linie', 'linii')}")


# ---------------------------------------------------------------------------------------------
# Modelul cursului cu FlexAttention
# ---------------------------------------------------------------------------------------------


class BlocCuFlex(BlocTransformer):
    """Stratul modelului cursului, cu atenția calculată de FlexAttention cu o mască pe blocuri
    dată (aceeași pentru toate straturile, construită o singură dată)."""

    masca: "BlockMask | None" = None

    def atentie(self, x: torch.Tensor) -> torch.Tensor:
        lot, lungime, canale = x.shape
        q, k, v = self.qkv(x).split(canale, dim=-1)
        forma = (lot, lungime, self.nr_capete, canale // self.nr_capete)
        q, k, v = (t.view(forma).transpose(1, 2) for t in (q, k, v))
        y = flex_attention(q, k, v, block_mask=self.masca)
        return self.proiectie(y.transpose(1, 2).reshape(lot, lungime, canale))


class ReteaCuFlex(ReteaTransformer):
    """`ReteaTransformer` cu straturile `BlocCuFlex`: aceleași greutăți (copiate dintr-un model
    dat), altă atenție. `masca` e masca pe blocuri a tuturor straturilor."""

    def __init__(self, configuratie: ConfiguratieTransformer, masca: "BlockMask"):
        super().__init__(configuratie)
        straturi = []
        for _ in range(configuratie.nr_straturi):
            strat = BlocCuFlex(configuratie.dim_model, configuratie.nr_capete)
            strat.masca = masca
            straturi.append(strat)
        self.straturi = torch.nn.ModuleList(straturi)
        self.apply(self._initializeaza)



@dataclass
class ComparatieModele:
    """Modelul cursului cu SDPA și cu FlexAttention cu fereastră: pe GPU, pierderile a `pasi`
    pași de antrenare compilați și timpul unui pas; pe procesor, pasul înainte (inferența):
    diferența ieșirilor cu fereastra cât toată secvența și timpul unui apel."""

    antrenare: bool
    configuratie: ConfiguratieTransformer
    fereastra: int
    comparatie: Comparatie
    pierderi: dict = field(default_factory=dict)
    diferenta_fara_fereastra: float | None = None
    diferenta_cu_fereastra: float | None = None


def _configuratie_model(alegere: AlegereFlex) -> ConfiguratieTransformer:
    from ..mediu import profil_curent
    from ..modele import configuratie_pentru_mediu

    if alegere.pe_gpu:
        return configuratie_pentru_mediu()
    if profil_curent() == "rapid":
        return ConfiguratieTransformer(vocabular=256, dim_model=32, nr_capete=2, nr_straturi=1, lungime=128, marime_lot=2)
    return ConfiguratieTransformer(vocabular=2048, dim_model=128, nr_capete=4, nr_straturi=2, lungime=256, marime_lot=4)


def compara_modelele(alegere: AlegereFlex, fereastra_glisanta: Callable[[int], Callable], pasi: int = 20,
                     fereastra: int | None = None) -> ComparatieModele:
    """`ReteaTransformer` (SDPA cauzală) și `ReteaCuFlex` (FlexAttention cu fereastra glisantă
    `fereastra_glisanta(latime)`, implicit un sfert din lungime), cu aceleași greutăți inițiale,
    compilate amândouă. Pe GPU: `pasi` pași de antrenare pe aceleași loturi (pierderile), apoi
    timpul unui pas, intercalat, cu un număr fix de pași. Pe procesor: ieșirile comparate (cu o
    fereastră cât toată secvența, FlexAttention trebuie să dea exact atenția cauzală) și timpul
    pasului înainte."""
    from ..modele import cu_precizie, lot_aleator, optimizator_pentru, pas_antrenare, pierdere, precizie_pentru_mediu

    configuratie = _configuratie_model(alegere)
    dispozitiv = alegere.dispozitiv
    lungime = configuratie.lungime
    fereastra = fereastra or max(1, lungime // 4)
    torch.manual_seed(0)
    cu_sdpa = ReteaTransformer(configuratie).to(dispozitiv)
    bloc = create_block_mask(fereastra_glisanta(fereastra), None, None, lungime, lungime, device=dispozitiv)
    cu_flex = ReteaCuFlex(configuratie, bloc).to(dispozitiv)
    cu_flex.load_state_dict(cu_sdpa.state_dict())
    intrari, tinte = lot_aleator(configuratie, dispozitiv)

    if not alegere.pe_gpu:
        cu_sdpa.eval()
        cu_flex.eval()
        plin = create_block_mask(fereastra_glisanta(lungime), None, None, lungime, lungime, device=dispozitiv)
        cu_flex_plin = ReteaCuFlex(configuratie, plin).to(dispozitiv).eval()
        cu_flex_plin.load_state_dict(cu_sdpa.state_dict())
        compilat_sdpa, compilat_flex = torch.compile(cu_sdpa), torch.compile(cu_flex)
        with torch.no_grad():
            referinta = compilat_sdpa(intrari)
            with fara_avertismentul_necompilat():
                diferenta_fara = float((cu_flex_plin(intrari) - referinta).abs().max())
            diferenta_cu = float((compilat_flex(intrari) - referinta).abs().max())
            comparatie = compara({"SDPA, cauzală": compilat_sdpa, f"Flex, fereastra {fereastra}": compilat_flex},
                                 intrari, runde=5, timp_minim_s=0.3)
        return ComparatieModele(False, configuratie, fereastra, comparatie,
                                diferenta_fara_fereastra=diferenta_fara, diferenta_cu_fereastra=diferenta_cu)

    precizie = precizie_pentru_mediu()
    variante, pierderi = {}, {}
    for nume, model in (("SDPA, cauzală", cu_sdpa), (f"Flex, fereastra {fereastra}", cu_flex)):
        optimizator = optimizator_pentru(model)
        calcul = cu_precizie(torch.compile(lambda x, y, model=model: pierdere(model, x, y)), precizie)
        pierderi[nume] = [float(pas_antrenare(calcul, optimizator, intrari, tinte)) for _ in range(pasi)]
        variante[nume] = lambda calcul=calcul, optimizator=optimizator: pas_antrenare(calcul, optimizator, intrari, tinte)
    comparatie = compara_pasi_ficsi(variante, runde=5, pasi_pe_runda=5, pe_gpu=True)
    return ComparatieModele(True, configuratie, fereastra, comparatie, pierderi=pierderi)


def arata_modelele(rezultat: ComparatieModele) -> None:
    """Ce a ieșit din schimbarea atenției în modelul cursului: pierderile și timpul pasului pe
    GPU; ieșirile și timpul inferenței pe procesor."""
    import matplotlib.pyplot as plt

    from ..grafice import arata, grafic_variante

    c = rezultat.configuratie
    nume = list(rezultat.comparatie.masuratori)
    print(f"Modelul: {cu_substantiv(c.nr_straturi, 'strat', 'straturi')} de lățime {c.dim_model}, "
          f"lungimea {format_numar(c.lungime)}, lotul {c.marime_lot}; fereastra FlexAttention: {format_numar(rezultat.fereastra)}.")
    if rezultat.antrenare:
        figura, axe = plt.subplots(1, 2, figsize=(12, 3.8))
        for n, valori in rezultat.pierderi.items():
            axe[0].plot(range(1, len(valori) + 1), valori, marker=".", label=n)
        axe[0].set_xlabel("pasul")
        axe[0].set_ylabel("pierderea")
        axe[0].set_title("antrenarea, compilată")
        axe[0].legend()
        grafic_variante(rezultat.comparatie.masuratori, "timpul unui pas de antrenare", ax=axe[1])
        figura.tight_layout()
        arata(figura)
        for n, valori in rezultat.pierderi.items():
            print(f"  {n}: pierderea de la {format_numar(valori[0], 3)} la {format_numar(valori[-1], 3)} în "
                  f"{cu_substantiv(len(valori), 'pas', 'pași')}.")
        raport = rezultat.comparatie.accelerare(nume[0], nume[1])
        print("  " + concluzie_accelerare(raport, "Pasul cu FlexAttention", "cel cu SDPA", feminin=False,
                                            ce_se_compara="variante"))
        cifre.inregistreaza("10.model_pas_flex_fata_de_sdpa", raport, "×", "pasul de antrenare cu FlexAttention (fereastră) față de SDPA")
        for n, valori in rezultat.pierderi.items():
            cheie = "flex" if n.startswith("Flex") else "sdpa"
            cifre.inregistreaza(f"10.model_pierdere_{cheie}", valori[-1], "",
                                f"pierderea după {cu_substantiv(len(valori), 'pas', 'pași')}, {n}",
                                prag_absolut=0.05)
            cifre.inregistreaza(f"10.model_pas_{cheie}_ms", rezultat.comparatie[n], "ms", f"timpul unui pas, {n}")
        return
    print(f"  Cu fereastra cât toată secvența, ieșirea cu FlexAttention diferă de cea cu SDPA "
          f"{_diferenta(rezultat.diferenta_fara_fereastra)}: e aceeași atenție cauzală.")
    print(f"  Cu fereastra de {format_numar(rezultat.fereastra)}, diferența ajunge la {format_numar(rezultat.diferenta_cu_fereastra, 3)}: "
          "fiecare jeton vede doar vecinii din fereastră, deci e alt model (pe care l-ai antrena cu fereastra).")
    grafic_variante(rezultat.comparatie.masuratori, "pasul înainte al modelului, pe procesor")
    arata()
    raport = rezultat.comparatie.accelerare(nume[0], nume[1])
    print("  " + concluzie_accelerare(raport, "Modelul cu FlexAttention", "cel cu SDPA", feminin=False,
                                        ce_se_compara="variante"))
    print("  Antrenarea cu FlexAttention cere un GPU (pe procesor, FlexAttention n-are pas înapoi). "
          + cifre.despre_referinta("antrenarea modelului cu FlexAttention", "10.model_"))
    if cifre.are_referinta("10.model_"):
        cifre.afiseaza_referinta("10.model_")
