"""Uneltele de diagnoză ale capitolului 07: „caietul de rețete” și „jurnalul bucătăriei”.

Fiecare unealtă de mai jos învelește o unealtă PyTorch (sau una instalată alături), ca un
notebook s-o poată rula pe loc și să arate ce a produs:

- `urma_torch_trace(functie, dosar)` — rulează `functie()` cu `TORCH_TRACE` îndreptat spre
  `dosar` (jurnalul structurat al compilării, același ca al variabilei de mediu);
- `ruleaza_tlparse(fisier_log, dosar)` — raportul HTML al lui `tlparse` pe acel jurnal
  (`RaportTlparse`: calea lui `index.html`, compilările, fișierele produse, câteva rânduri);
- `dump_depyf(functie, dosar)` — `depyf.prepare_debug(dosar)`: bytecode-ul transformat de
  Dynamo, decompilat în Python, graful și gărzile, fiecare într-un fișier (`DumpDepyf`);
- `timpi_compilare()` — `torch._dynamo.utils.compile_times()`, ca tabel cu timpi formatați;
- `urma_profiler(functie, fisier)` — urma `torch.profiler` exportată cu `export_chrome_trace`
  (se deschide în Perfetto sau `chrome://tracing`), iar `regiuni_compilate(fisier)` găsește
  în ea evenimentele „Torch-Compiled Region” (unde a rulat codul compilat);
- `compara_etape(functie, intrari)` — aceeași funcție compilată cu backend-urile
  eager → aot_eager → aot_eager_decomp_partition → inductor, fiecare comparată cu modul eager;
- `bisecteaza_compilatorul(proba)` — `CompilerBisector.do_bisect`, cu ieșirea lui prinsă;
- `cost_garzi(functie, locale)` — costul la cald al unei evaluări a gărzilor unui cadru deja
  compilat, măsurat cu `masurare.compara` (cifra „Guard eval latency” din jurnalul `guards` e o
  singură evaluare, la rece, făcută la compilare);
- `avertismente_dynamo()` — prinde avertismentele lui Dynamo (de exemplu „Dynamo does not know
  how to trace the builtin …”) și le spune pe scurt în română (`AvertismentDynamo.in_romana`);
- `numara_compilari(functie, apeluri)` — compilările unei funcții pe o listă de apeluri și prima
  gardă care a picat, din jurnal (secțiunea 2; `grafic_recompilari` le desenează, stricat față de
  reparat);
- `grafic_pasul_reparat`, `de_ce_nu_castiga_reparata`, `inregistreaza_pasul_reparat` și
  `inregistreaza_bucla_lenta` — graficul, explicația și cifrele pasului „compilat, dar mai lent
  decât eager” (secțiunea 3, exercițiul 4);
- `masoara_trapele(variante, *argumente, backend=…)` — grafurile, întreruperile și timpul pe apel al
  variantelor unei trape de ieșire (secțiunea 4), `concluzie_trapa` și `grafic_trape`;
- `wrap_triton_pe_interpretor()` — pe un procesor, cu interpretorul Triton, face ca
  `torch.library.wrap_triton` să lase kernel-ul interpretat să treacă, cum face torch 2.14
  (torch 2.11 îl refuză);
- `HARTA_DIAGNOZEI` și `deseneaza_harta()` — harta „simptom → prima comandă”, desenată în
  `assets/diagnoza/harta_diagnozei.png` (`make ilustratii` sau `python -m curs_compilare.capitole.cap07_diagnoza`).
"""

from __future__ import annotations

import contextlib
import html
import io
import json
import logging
import os
import re
import shutil
import subprocess
import sys
import textwrap
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Sequence

import matplotlib

if __name__ == "__main__":  # din linia de comandă nu e nevoie de fereastră
    matplotlib.use("Agg")

import torch

from ..cifre import format_timp

__all__ = [
    "cale_tlparse",
    "urma_torch_trace",
    "ruleaza_tlparse",
    "RaportTlparse",
    "dump_depyf",
    "DumpDepyf",
    "timpi_compilare",
    "RandTimpCompilare",
    "urma_profiler",
    "regiuni_compilate",
    "RegiuneCompilata",
    "ETAPE_BACKEND",
    "EtapaComparata",
    "compara_etape",
    "bisecteaza_compilatorul",
    "CostGarzi",
    "cost_garzi",
    "numara_compilari",
    "grafic_recompilari",
    "grafic_pasul_reparat",
    "de_ce_nu_castiga_reparata",
    "inregistreaza_pasul_reparat",
    "inregistreaza_bucla_lenta",
    "AvertismentDynamo",
    "avertismente_dynamo",
    "masoara_trapele",
    "concluzie_trapa",
    "grafic_trape",
    "wrap_triton_pe_interpretor",
    "HARTA_DIAGNOZEI",
    "texte_harta",
    "cale_harta",
    "deseneaza_harta",
    "arata_harta",
]


# ---------------------------------------------------------------------------------------------
# TORCH_TRACE și tlparse
# ---------------------------------------------------------------------------------------------


def cale_tlparse() -> str | None:
    """Calea executabilului `tlparse`: întâi lângă interpretorul Python curent (pachetul pip
    `tlparse` îl pune în `bin/` al mediului), apoi pe PATH. `None` dacă lipsește."""
    langa = Path(sys.executable).parent / ("tlparse.exe" if os.name == "nt" else "tlparse")
    if langa.exists():
        return str(langa)
    return shutil.which("tlparse")


@contextlib.contextmanager
def _torch_trace_in(dosar: Path):
    """Îndreaptă jurnalul structurat al compilării (`torch.__trace`, cel pe care îl scrie
    variabila de mediu `TORCH_TRACE`) spre un fișier nou din `dosar`, doar cât ține blocul."""
    from torch._logging import _internal

    manipulator = _internal.LazyTraceHandler(str(dosar))
    manipulator.setFormatter(_internal.TorchLogsFormatter(trace=True))
    jurnal = _internal.trace_log
    nivel_vechi = jurnal.level
    jurnal.setLevel(logging.DEBUG)
    jurnal.addHandler(manipulator)
    try:
        yield manipulator
    finally:
        jurnal.removeHandler(manipulator)
        jurnal.setLevel(nivel_vechi)
        manipulator.close()


def urma_torch_trace(functie: Callable[[], object], dosar: str | Path, reseteaza: bool = True) -> Path | None:
    """Rulează `functie()` (fără argumente: de exemplu `lambda: f_compilat(x)`) cu jurnalul
    `TORCH_TRACE` scris în `dosar` (golit înainte) și întoarce fișierul `.log` scris, sau `None`
    dacă nimic nu s-a compilat. Cu `reseteaza=True`, golește întâi cache-ul lui Dynamo
    (`torch._dynamo.reset()`): o funcție deja compilată nu mai scrie nimic în jurnal.

    Echivalentul din linia de comandă: `TORCH_TRACE=dosar python script.py`."""
    dosar = Path(dosar)
    shutil.rmtree(dosar, ignore_errors=True)
    dosar.mkdir(parents=True, exist_ok=True)
    if reseteaza:
        torch._dynamo.reset()
    with _torch_trace_in(dosar):
        functie()
    jurnale = sorted(dosar.glob("*.log"), key=lambda p: p.stat().st_mtime)
    return jurnale[-1] if jurnale else None


@dataclass
class RaportTlparse:
    """Ce a produs `tlparse`: dosarul raportului, pagina principală (`index`, `None` dacă
    `tlparse` lipsește sau a eșuat) și `mesaj` (ce s-a întâmplat, în română)."""

    dosar: Path
    index: Path | None
    mesaj: str = ""

    @property
    def exista(self) -> bool:
        return self.index is not None and self.index.exists()

    def text(self) -> str:
        """Textul paginii principale, fără etichete HTML, stiluri și scripturi."""
        if not self.exista:
            return ""
        brut = self.index.read_text(encoding="utf-8", errors="replace")
        brut = re.sub(r"<(style|script)\b.*?</\1>", "", brut, flags=re.S | re.I)
        return html.unescape(re.sub(r"<[^>]+>", "", brut))

    def linii(self) -> list[str]:
        """Rândurile nevide ale paginii principale."""
        return [l.strip() for l in self.text().splitlines() if l.strip()]

    def compilari(self) -> list[str]:
        """Identificatorii compilărilor din raport, în ordine: „[0/0]” e primul cadru (*frame*)
        compilat, „[0/1]” prima lui recompilare, „[1/0]” următorul cadru (de exemplu, cel de
        după o întrerupere a grafului)."""
        gasite = re.findall(r"\[\d+/\d+(?:_\d+)?\]", self.text())
        return list(dict.fromkeys(gasite))

    def fisiere(self, contine: str = "") -> list[Path]:
        """Fișierele produse de `tlparse` (grafurile, gărzile, codul generat, motivele
        recompilărilor…), cu `contine` în nume, sortate."""
        if not self.dosar.exists():
            return []
        return sorted(p for p in self.dosar.rglob("*") if p.is_file() and contine in p.name)

    def motive_recompilare(self) -> list[str]:
        """Motivele recompilărilor, din fișierele `recompile_reasons_*` ale raportului: câte o
        linie „x/y: garda care a picat”, fără comentariul de la coadă."""
        motive = []
        for cale in self.fisiere("recompile_reasons"):
            for linie in cale.read_text(encoding="utf-8", errors="replace").splitlines():
                if re.match(r"^\s*\d+/\d+: ", linie):
                    motive.append(linie.strip().split("  # ", 1)[0].rstrip())
        return motive


def ruleaza_tlparse(fisier_log: str | Path | None, dosar: str | Path) -> RaportTlparse:
    """Rulează `tlparse fisier_log -o dosar --overwrite --no-browser` și întoarce raportul.
    Dacă `tlparse` lipsește sau jurnalul e gol, raportul nu are `index`, iar `mesaj` spune de ce
    (nu se aruncă nicio excepție)."""
    dosar = Path(dosar)
    executabil = cale_tlparse()
    if executabil is None:
        return RaportTlparse(dosar, None, "tlparse nu e instalat: pip install tlparse (apoi repornește kernel-ul Jupyter).")
    if fisier_log is None or not Path(fisier_log).exists():
        return RaportTlparse(dosar, None, "Jurnalul TORCH_TRACE lipsește: nu s-a compilat nimic în timpul rulării.")
    try:
        rezultat = subprocess.run(
            [executabil, str(fisier_log), "-o", str(dosar), "--overwrite", "--no-browser"],
            capture_output=True, text=True, timeout=120,
        )
    except (OSError, subprocess.TimeoutExpired) as eroare:
        return RaportTlparse(dosar, None, f"tlparse nu a putut rula: {eroare}")
    index = dosar / "index.html"
    if rezultat.returncode != 0 or not index.exists():
        ultima = (rezultat.stderr or rezultat.stdout).strip().splitlines()[-1:] or [""]
        return RaportTlparse(dosar, None, f"tlparse a ieșit cu codul {rezultat.returncode}: {ultima[0]}")
    return RaportTlparse(dosar, index, "Raportul tlparse e gata.")


# ---------------------------------------------------------------------------------------------
# depyf
# ---------------------------------------------------------------------------------------------


@dataclass
class DumpDepyf:
    """Fișierele scrise de `depyf.prepare_debug(dosar)`:

    - `full_code_for_<funcție>_*.py`: totul într-un loc — funcțiile de gardă, codul transformat
      de Dynamo, decompilat în Python, și funcția originală;
    - `__transformed_code_*.py`: bytecode-ul transformat, decompilat;
    - `__compiled_fn_*.py`: graful FX capturat (codul lui Python).
    """

    dosar: Path
    mesaj: str = ""

    def fisiere(self, contine: str = "") -> list[Path]:
        if not self.dosar.exists():
            return []
        return sorted(p for p in self.dosar.rglob("*.py") if contine in p.name)

    def cod_complet(self) -> str:
        """Conținutul fișierului `full_code_for_*.py` (gol dacă lipsește)."""
        fisiere = self.fisiere("full_code_for_")
        return fisiere[0].read_text(encoding="utf-8", errors="replace") if fisiere else ""

    def garzi(self) -> list[str]:
        """Condițiile gărzilor, câte una pe rând, fără comentariul de la coadă."""
        rezultat = []
        for linie in self.cod_complet().splitlines():
            linie = linie.strip()
            if linie.startswith("__guard_hit = __guard_hit and "):
                conditie = linie.removeprefix("__guard_hit = __guard_hit and ")
                rezultat.append(conditie.split("  # ", 1)[0].rstrip())
        return rezultat

    def functie_din_cod(self, inceput: str) -> str:
        """Definiția (`def …`) din codul complet al cărei nume începe cu `inceput`, până la
        următoarea linie goală."""
        linii = self.cod_complet().splitlines()
        for i, linie in enumerate(linii):
            if linie.startswith(f"def {inceput}"):
                sfarsit = next((j for j in range(i + 1, len(linii)) if not linii[j].strip()), len(linii))
                return "\n".join(linii[i:sfarsit])
        return ""

    def graf(self) -> str:
        """Codul grafului FX capturat (primul `__compiled_fn_*.py` fără „pre_insert” în nume)."""
        for cale in self.fisiere("__compiled_fn_"):
            if "pre_insert" not in cale.name:
                return cale.read_text(encoding="utf-8", errors="replace")
        return ""


def dump_depyf(functie: Callable[[], object], dosar: str | Path, reseteaza: bool = True) -> DumpDepyf:
    """Rulează `functie()` (de exemplu `lambda: f_compilat(x)`) sub `depyf.prepare_debug(dosar)`
    (golit înainte). Cu `reseteaza=True`, golește întâi cache-ul lui Dynamo, ca funcția să se
    compileze din nou. Dacă `depyf` lipsește, `mesaj` o spune (fără excepție). Avertismentele și
    mesajele lui `depyf` de pe ecran sunt ascunse."""
    dosar = Path(dosar)
    shutil.rmtree(dosar, ignore_errors=True)
    try:
        import depyf
    except ImportError:
        return DumpDepyf(dosar, "depyf nu e instalat: pip install depyf (apoi repornește kernel-ul Jupyter).")
    if reseteaza:
        torch._dynamo.reset()
    tampon = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(tampon), contextlib.redirect_stderr(tampon):
        warnings.simplefilter("ignore")
        with depyf.prepare_debug(str(dosar)):
            functie()
    return DumpDepyf(dosar, "Dump-ul depyf e gata.")


# ---------------------------------------------------------------------------------------------
# compile_times
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RandTimpCompilare:
    """Un rând din `compile_times()`: etapa (numele funcției măsurate de `dynamo_timed`),
    de câte ori a rulat și timpul total, în secunde."""

    etapa: str
    apeluri: int
    total_s: float


def timpi_compilare(maxim: int = 12) -> list[RandTimpCompilare]:
    """Datele lui `torch._dynamo.utils.compile_times()` (dicționarul `compilation_time_metrics`:
    pentru fiecare etapă măsurată, durata fiecărui apel), ca rânduri sortate descrescător după
    timpul total (cel mult `maxim`). Timpii se adună de la ultimul `torch._dynamo.reset()`, care
    îi golește."""
    from torch._dynamo import utils

    randuri = []
    for etapa, valori in utils.compilation_time_metrics.items():
        valori = [float(v) for v in valori]
        randuri.append(RandTimpCompilare(str(etapa), len(valori), sum(valori)))
    randuri.sort(key=lambda r: r.total_s, reverse=True)
    return randuri[:maxim]


def tabel_timpi_compilare(randuri: Sequence[RandTimpCompilare]) -> str:
    """Tabelul rândurilor, cu timpii scriși ca în curs („1,23 ms”)."""
    latime = max([len(r.etapa) for r in randuri] + [5])
    linii = [f"{'etapa':<{latime}} {'apeluri':>8} {'total':>10}"]
    linii += [f"{r.etapa:<{latime}} {r.apeluri:>8} {format_timp(r.total_s):>10}" for r in randuri]
    return "\n".join(linii)


# ---------------------------------------------------------------------------------------------
# Urma profilerului
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RegiuneCompilata:
    """Un eveniment „Torch-Compiled Region: x/y” din urma profilerului: identificatorul
    compilării („0/0”), începutul și durata, în microsecunde."""

    compilare: str
    inceput_us: float
    durata_us: float


def urma_profiler(functie: Callable[[], object], fisier: str | Path, pasi: int = 1) -> Path:
    """Rulează `functie()` de `pasi` ori sub `torch.profiler` (procesorul și, dacă există, GPU-ul)
    și scrie urma cu `export_chrome_trace(fisier)`; întoarce calea fișierului JSON.
    Fișierul se deschide în https://ui.perfetto.dev sau în `chrome://tracing`."""
    from torch.profiler import ProfilerActivity, profile

    fisier = Path(fisier)
    fisier.parent.mkdir(parents=True, exist_ok=True)
    activitati = [ProfilerActivity.CPU] + ([ProfilerActivity.CUDA] if torch.cuda.is_available() else [])
    with profile(activities=activitati) as profil:
        for _ in range(pasi):
            functie()
        if torch.cuda.is_available():
            torch.cuda.synchronize()
    profil.export_chrome_trace(str(fisier))
    return fisier


def evenimente_urma(fisier: str | Path) -> list[dict]:
    """Evenimentele (`traceEvents`) dintr-o urmă Chrome/Perfetto."""
    date = json.loads(Path(fisier).read_text(encoding="utf-8"))
    return date.get("traceEvents", []) if isinstance(date, dict) else list(date)


def regiuni_compilate(fisier: str | Path) -> list[RegiuneCompilata]:
    """Evenimentele „Torch-Compiled Region” din urma scrisă de `urma_profiler`, în ordinea
    începutului. Dynamo pune un asemenea eveniment în jurul fiecărei rulări a unui cadru
    compilat; între ele, programul a rulat Python obișnuit (eager)."""
    regiuni = []
    for e in evenimente_urma(fisier):
        nume = str(e.get("name", ""))
        if nume.startswith("Torch-Compiled Region") and e.get("ph") == "X":
            regiuni.append(RegiuneCompilata(
                compilare=nume.split(":", 1)[-1].strip(),
                inceput_us=float(e.get("ts", 0.0)),
                durata_us=float(e.get("dur", 0.0)),
            ))
    return sorted(regiuni, key=lambda r: r.inceput_us)


# ---------------------------------------------------------------------------------------------
# Acuratețea: etapele compilatorului
# ---------------------------------------------------------------------------------------------

#: Backend-urile, de la cel care face cel mai puțin la cel care face tot: Dynamo singur;
#: plus AOTAutograd; plus descompunerile și partiționarea; plus generarea de cod (Inductor).
ETAPE_BACKEND = ("eager", "aot_eager", "aot_eager_decomp_partition", "inductor")


@dataclass(frozen=True)
class EtapaComparata:
    """Rezultatul unei etape față de modul eager: diferența absolută maximă și dacă
    `torch.testing.assert_close` (toleranțele implicite ale dtype-ului) îl acceptă."""

    etapa: str
    diferenta_maxima: float
    la_fel: bool


def _ca_tuplu(rezultat) -> tuple[torch.Tensor, ...]:
    if isinstance(rezultat, torch.Tensor):
        return (rezultat,)
    return tuple(t for t in rezultat if isinstance(t, torch.Tensor))


def compara_etape(
    functie: Callable,
    intrari: Sequence,
    etape: Sequence[str] = ETAPE_BACKEND,
    inainte_de_fiecare: Callable[[], object] | None = None,
) -> list[EtapaComparata]:
    """Compilează `functie` cu fiecare backend din `etape`, o rulează pe `intrari` și compară
    rezultatul cu cel al lui `functie` necompilate. Între etape golește cache-ul lui Dynamo.
    `inainte_de_fiecare()` (de exemplu `lambda: torch.manual_seed(0)`) rulează înaintea fiecărei
    rulări, inclusiv a celei eager de referință."""
    if inainte_de_fiecare:
        inainte_de_fiecare()
    referinta = _ca_tuplu(functie(*intrari))
    rezultate = []
    for etapa in etape:
        torch._dynamo.reset()
        if inainte_de_fiecare:
            inainte_de_fiecare()
        obtinut = _ca_tuplu(torch.compile(functie, backend=etapa)(*intrari))
        diferenta = max(
            (float((a.double() - b.double()).abs().max()) if a.numel() else 0.0 for a, b in zip(obtinut, referinta)),
            default=0.0,
        )
        try:
            for a, b in zip(obtinut, referinta, strict=True):
                torch.testing.assert_close(a, b)
            la_fel = True
        except (AssertionError, ValueError):
            la_fel = False
        rezultate.append(EtapaComparata(etapa, diferenta, la_fel))
    torch._dynamo.reset()
    return rezultate


def bisecteaza_compilatorul(proba: Callable[[], bool]):
    """`CompilerBisector.do_bisect(proba)`: `proba()` compilează (cu `torch.compile` chemat
    înăuntru, fără backend ales) și întoarce True dacă rezultatul e bun. Bisectorul încearcă
    backend-urile pe rând, apoi, în cel vinovat, oprește pe rând subsistemele (trecerile,
    opțiunile de configurare, coborârile operațiilor) până găsește ce strică rezultatul.

    Întoarce `(rezultat, jurnal)`: `BisectionResult` (sau `None`) și ce a tipărit bisectorul."""
    from torch._inductor.compiler_bisector import CompilerBisector

    tampon = io.StringIO()
    with warnings.catch_warnings(), contextlib.redirect_stdout(tampon), contextlib.redirect_stderr(tampon):
        warnings.simplefilter("ignore")
        rezultat = CompilerBisector.do_bisect(proba)
    torch._dynamo.reset()
    return rezultat, tampon.getvalue()


# ---------------------------------------------------------------------------------------------
# Gărzile: costul la cald al unei evaluări
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class CostGarzi:
    """Costul la cald al gărzilor unui cadru compilat: `masuratoare` e o evaluare a gărzilor
    intrării din cache care s-ar potrivi cu `locale` (`compilare`, de exemplu „0/1”), apelată
    din Python; `gol` e un apel Python gol, măsurat în aceleași runde (cât din cifră e doar
    apelul din Python). `intrari` spune câte intrări are cache-ul cadrului."""

    compilare: str
    intrari: int
    masuratoare: object
    gol: object

    @property
    def pe_apel_s(self) -> float:
        """Timpul gărzilor fără apelul Python gol (cel puțin 0)."""
        return max(0.0, self.masuratoare.mediana_s - self.gol.mediana_s)


def cost_garzi(functie: Callable, locale: dict, timp_minim_s: float = 0.2) -> CostGarzi | None:
    """Măsoară, cu `masurare.compara`, o evaluare a gărzilor cadrului lui `functie` (funcția
    originală, deja compilată cu `torch.compile` și rulată), pe argumentele din `locale`
    (`{"x": x, "w": w, "pondere": 3}`): dintre intrările cache-ului lui Dynamo, cea ale cărei
    gărzi trec (cea pe care ar rula-o un apel cu aceste argumente).

    Dynamo evaluează gărzile din C++ la fiecare apel; aici evaluarea e chemată din Python
    (`guard_manager.check`, o funcție internă de depanare, prezentă în torch 2.11 și 2.14),
    lângă un apel Python gol, ca să se vadă cât e doar apelul. Întoarce None dacă versiunea ta
    nu are aceste funcții sau dacă nicio intrare nu se potrivește."""
    from ..masurare import compara

    try:
        from torch._dynamo.eval_frame import _debug_get_cache_entry_list

        intrari = list(_debug_get_cache_entry_list(functie))
        potrivita = next((e for e in intrari if e.guard_manager.check(locale)), None)
    except Exception:
        return None
    if potrivita is None:
        return None
    verifica = potrivita.guard_manager.check
    comparatie = compara(
        {"gărzile": lambda: verifica(locale), "apel gol": lambda: True},
        timp_minim_s=timp_minim_s, pe_gpu=False, ceas="perete", pazeste_recompilari=False,
    )
    compilare = str(getattr(potrivita, "compile_id", "") or "?")
    return CostGarzi(compilare, len(intrari), comparatie["gărzile"], comparatie["apel gol"])


# ---------------------------------------------------------------------------------------------
# Recompilările care nu vin din forme (secțiunea 2)
# ---------------------------------------------------------------------------------------------


def numara_compilari(functie_de_compilat: Callable, apeluri: Sequence[Callable]) -> tuple[int, str]:
    """Golește cache-ul lui Dynamo, compilează `functie_de_compilat` (cu `backend="eager"`, printr-un
    `NumaratorCompilari`) și rulează `apel(compilat)` pentru fiecare apel din listă, cu limita de
    recompilări ridicată la 32 și jurnalul `recompiles` prins. Întoarce numărul de compilări și
    prima gardă care a picat, din jurnal („—” dacă n-a picat niciuna)."""
    from ..inspectie import NumaratorCompilari, jurnal_torch, limita_recompilari

    torch._dynamo.reset()
    numarator = NumaratorCompilari("eager")
    compilat = torch.compile(functie_de_compilat, backend=numarator)
    with limita_recompilari(32), jurnal_torch(recompiles=True) as jurnal:
        for apel in apeluri:
            apel(compilat)
    motive = [l.strip() for l in jurnal.linii() if l.strip().startswith("- 0/")]
    return numarator.compilari, (motive[0].removeprefix("- ").split("  # ")[0].strip() if motive else "—")


def grafic_recompilari(rezultate: dict):
    """Bare orizontale, câte o pereche pe caz: compilările variantei stricate (roșu) și ale celei
    reparate (verde), din `rezultate` (cazul → (stricat, reparat)). Întoarce figura (de afișat cu
    `grafice.arata`)."""
    import matplotlib.pyplot as plt

    figura, ax = plt.subplots(figsize=(8, 3.6))
    nume_cazuri = list(rezultate)
    pozitii = range(len(nume_cazuri))
    ax.barh([p + 0.2 for p in pozitii], [r[0] for r in rezultate.values()], height=0.4, label="stricat", color="#d62728")
    ax.barh([p - 0.2 for p in pozitii], [r[1] for r in rezultate.values()], height=0.4, label="reparat", color="#2ca02c")
    ax.set_yticks(list(pozitii), nume_cazuri)
    ax.invert_yaxis()
    ax.set_xlabel("compilări în 6 apeluri")
    ax.set_title("Recompilări care nu vin din forme: înainte și după reparare")
    ax.legend()
    return figura


# ---------------------------------------------------------------------------------------------
# „Compilat, dar mai lent decât eager” (secțiunea 3 și exercițiul 4)
# ---------------------------------------------------------------------------------------------


def grafic_pasul_reparat(comparatie):
    """Timpul pe apel (mediana) al celor patru variante ale pasului cu `.item()` din secțiunea 3:
    „eager, stricat”, „eager, reparat”, „compilat, stricat”, „compilat, reparat”, în ordinea din
    `comparatie`. Întoarce figura (de afișat cu `grafice.arata`)."""
    import matplotlib.pyplot as plt

    figura, ax = plt.subplots(figsize=(7, 3))
    nume_variante = list(comparatie.masuratori)
    ax.barh(nume_variante, [comparatie[n].mediana_us for n in nume_variante], color=["#7f7f7f", "#bdbdbd", "#d62728", "#2ca02c"])
    ax.invert_yaxis()
    ax.set_xlabel("timp pe apel (µs, mediana)")
    ax.set_title("Pasul cu .item(): eager și compilat, stricat și reparat")
    return figura


def de_ce_nu_castiga_reparata(comparatie, pe_gpu: bool) -> str | None:
    """Dacă pe mașina ta varianta „compilat, reparat” nu e cea mai rapidă dintre cele patru ale
    secțiunii 3 (mediana), propoziția care spune de ce, din cifrele `comparatie`: varianta reparată
    e mai lentă încă din modul eager (`torch.where` calculează ambele ramuri; pe procesor, nici
    `.item()` nu așteaptă vreun GPU), iar compilarea o accelerează sau nu față de ea însăși, în
    modul eager. None când varianta compilată reparată e cea mai rapidă."""
    from ..cifre import cu_unitate

    timpi = {n: m.mediana_s for n, m in comparatie.masuratori.items()}
    cea_mai_rapida = min(timpi, key=timpi.get)
    if cea_mai_rapida == "compilat, reparat":
        return None
    eager_reparat = comparatie.accelerare("eager, stricat", "eager, reparat")
    compilare_reparat = comparatie.accelerare("eager, reparat", "compilat, reparat")
    motive = []
    if eager_reparat.mai_lent:
        motive.append(f"în modul eager, varianta reparată e deja mai lentă decât cea stricată ({cu_unitate(eager_reparat.mediana, '×')}): "
                      "`torch.where` calculează ambele ramuri" + ("" if pe_gpu else ", iar pe procesor `.item()` nu așteaptă niciun GPU"))
    if compilare_reparat.mai_rapid:
        motive.append(f"față de propria variantă eager, compilarea o accelerează ({cu_unitate(compilare_reparat.mediana, '×')}): "
                      "lecția ține, doar că baza de comparație contează")
    else:
        motive.append("nici față de propria variantă eager compilarea nu câștigă aici: pe atât de puțin lucru, "
                      "costul fix al apelului compilat rămâne mai mare decât câștigul fuziunii")
    return (f"Pe mașina ta, varianta compilată reparată nu e cea mai rapidă dintre cele patru ({cea_mai_rapida} e). De ce: "
            + "; ".join(motive) + ".")


def inregistreaza_pasul_reparat(comparatie, pe_gpu: bool) -> None:
    """Pe GPU, înregistrează accelerările pasului din secțiunea 3: compilat stricat față de eager
    stricat, compilat reparat față de eager stricat și față de eager reparat. Pe procesor, unde
    cifrele depind mult de mașină, tipărește cifrele de referință."""
    from ..cifre import afiseaza_referinta, inregistreaza

    if pe_gpu:
        inregistreaza("07.pas_stricat_fata_de_eager", comparatie.accelerare("eager, stricat", "compilat, stricat"), "×",
                      "pasul cu .item() în fiecare segment, compilat, față de eager")
        inregistreaza("07.pas_reparat_fata_de_eager", comparatie.accelerare("eager, stricat", "compilat, reparat"), "×",
                      "pasul cu torch.where, compilat, față de pasul eager stricat")
        inregistreaza("07.pas_reparat_fata_de_eager_reparat", comparatie.accelerare("eager, reparat", "compilat, reparat"), "×",
                      "pasul cu torch.where, compilat, față de același pas în modul eager")
    else:
        print("\nPe procesor, cifrele depind mult de mașină. Pe un H200:")
        afiseaza_referinta("07.pas_")


def inregistreaza_bucla_lenta(comparatie, pe_gpu: bool) -> None:
    """Pe GPU, înregistrează cât de rapidă e `bucla_lenta` (exercițiul 4), compilată, față de cea
    eager; pe procesor, tipărește cifra de referință."""
    from ..cifre import afiseaza_referinta, inregistreaza

    if pe_gpu:
        inregistreaza("07.bucla_lenta_fata_de_eager", comparatie.accelerare("eager", "compilată, lentă"), "×",
                      "bucla_lenta (exercițiul 4), compilată, față de eager")
    else:
        print("\nPe un H200:")
        afiseaza_referinta("07.bucla_")


# ---------------------------------------------------------------------------------------------
# Avertismentele lui Dynamo, în română
# ---------------------------------------------------------------------------------------------

_TIPARE_AVERTISMENTE = (
    (
        re.compile(r"Dynamo does not know how to trace the builtin `([\w.]+?)\.?`"),
        "Dynamo nu știe să urmărească funcția `{0}` (scrisă în C, nu în Python): rupe graful acolo și "
        "îți propune s-o faci operație proprie (`torch.library.custom_op`) sau s-o lași în graf cu "
        "`torch.compiler.allow_in_graph`",
    ),
    (
        re.compile(r"Graph break from `Tensor\.item\(\)`"),
        "Dynamo rupe graful la `Tensor.item()` (valoarea unui tensor adusă în Python); cu "
        "`torch._dynamo.config.capture_scalar_outputs = True` ar putea-o ține în graf",
    ),
)


@dataclass(frozen=True)
class AvertismentDynamo:
    """Un avertisment prins: categoria, textul original (în engleză) și, dacă îl recunoaștem,
    propoziția-cheie în română (`in_romana`, altfel None)."""

    categorie: str
    text: str
    in_romana: str | None


def _in_romana(text: str) -> str | None:
    for tipar, sablon in _TIPARE_AVERTISMENTE:
        potrivire = tipar.search(text)
        if potrivire:
            return sablon.format(*potrivire.groups())
    return None


@contextlib.contextmanager
def avertismente_dynamo():
    """Prinde avertismentele Python (`warnings`) emise în bloc, fără să le lase pe ecran (în
    notebook ar apărea pe roșu, în engleză), și le pune, fără repetări, în lista întoarsă: câte
    un `AvertismentDynamo`. Tipărește-le cu `in_romana`."""
    prinse: list[AvertismentDynamo] = []
    with warnings.catch_warnings(record=True) as inregistrate:
        warnings.simplefilter("always")
        yield prinse
    vazute = set()
    for avertisment in inregistrate:
        text = str(avertisment.message)
        if text in vazute:
            continue
        vazute.add(text)
        prinse.append(AvertismentDynamo(avertisment.category.__name__, text, _in_romana(text)))


# ---------------------------------------------------------------------------------------------
# Trapele de ieșire: cât costă fiecare (secțiunea 4)
# ---------------------------------------------------------------------------------------------


def masoara_trapele(variante: dict, *argumente, backend: str = "inductor", **optiuni_compile):
    """Pentru fiecare variantă (numele → funcția): grafurile și întreruperile (`inspectie.explica`,
    tipărite pe câte un rând) și timpul pe apel, compilată cu `backend` (și `optiuni_compile`) și
    verificată față de prima variantă. Avertismentele lui Dynamo de la compilare sunt prinse
    (`avertismente_dynamo`) și spuse pe scurt, în română, apoi comparația e tipărită. Întoarce
    comparația (`masurare.compara`) și numărul de grafuri al fiecărei variante."""
    from ..inspectie import explica
    from ..masurare import compara

    compilate, grafuri = {}, {}
    with avertismente_dynamo() as avertismente:
        for nume, functie in variante.items():  # explica golește cache-ul lui Dynamo: întâi toate explicațiile
            explicatie = explica(functie, *argumente)
            grafuri[nume] = explicatie.numar_grafuri
            print(f"{nume:<20} grafuri: {explicatie.numar_grafuri}, întreruperi: {explicatie.numar_intreruperi}")
        for nume, functie in variante.items():  # apoi compilările, păstrate până la măsurătoare
            compilate[nume] = torch.compile(functie, backend=backend, **optiuni_compile)
            torch.testing.assert_close(compilate[nume](*argumente), next(iter(variante.values()))(*argumente))
        comparatie = compara(compilate, *argumente, timp_minim_s=0.2)
    for avertisment in avertismente:
        if avertisment.in_romana:
            print(f"Avertismentul lui Dynamo, pe scurt: {avertisment.in_romana}.")
        else:
            print(f"Avertisment ({avertisment.categorie}, în engleză): {avertisment.text.splitlines()[0][:150]}")
    print(comparatie)
    return comparatie, grafuri


def concluzie_trapa(comparatie, grafuri: dict, referinta: str, varianta: str, subiect: str, text_referinta: str) -> str:
    """Concluzia pentru două variante de cod: cauza, dacă varianta e mai lentă, reiese din numărul de grafuri."""
    from ..concluzii import concluzie_accelerare

    return concluzie_accelerare(comparatie.accelerare(referinta, varianta), subiect=subiect, referinta=text_referinta,
                                ce_se_compara="variante", grafuri=(grafuri[varianta], grafuri[referinta]))


def grafic_trape(costuri: dict, backend: str):
    """Timpul pe apel (mediana) al fiecărei variante a trapelor de ieșire (numele → măsurătoarea):
    roșu, variantele cu întrerupere („se rupe”, `disable`); verde, cele fără. Întoarce figura (de
    afișat cu `grafice.arata`)."""
    import matplotlib.pyplot as plt

    figura, ax = plt.subplots(figsize=(8, 3.8))
    ax.barh(list(costuri), [m.mediana_us for m in costuri.values()],
            color=["#d62728" if "rupe" in n or n == "disable" else "#2ca02c" for n in costuri])
    ax.invert_yaxis()
    ax.set_xlabel("timp pe apel (µs, mediana)")
    ax.set_title(f"Trapele de ieșire, compilate cu {backend}: roșu, cu întrerupere; verde, fără")
    return figura


# ---------------------------------------------------------------------------------------------
# wrap_triton și interpretorul Triton
# ---------------------------------------------------------------------------------------------


def wrap_triton_pe_interpretor() -> bool:
    """Pe un procesor, Triton rulează prin interpretor (`TRITON_INTERPRET=1`), iar `@triton.jit`
    dă un `InterpretedFunction`. torch 2.14 îl lasă pe acesta să treacă prin
    `torch.library.wrap_triton` (îl întoarce neschimbat), torch 2.11 îl refuză („wrap_triton only
    works on functions annotated with triton.jit or triton.autotune”). Funcția de aici aduce
    comportamentul din 2.14 pe versiunile care îl refuză, doar pentru kernel-urile interpretate
    (celelalte trec mai departe, neatinse), și întoarce True dacă a fost nevoie. Pe un GPU, sau
    unde `wrap_triton` primește deja kernel-ul interpretat, nu schimbă nimic."""
    try:
        import torch._library.triton as biblioteca_triton
        from triton.runtime.interpreter import InterpretedFunction
    except Exception:
        return False
    originala = biblioteca_triton.wrap_triton
    if getattr(originala, "_curs_pe_interpretor", False):
        return True

    @_triton_jit_interpretat
    def _proba(x_ptr):  # pragma: no cover - doar pentru proba de mai jos
        pass

    if _proba is None or not isinstance(_proba, InterpretedFunction):
        return False
    try:
        originala(_proba)
        return False  # versiunea ta îl acceptă deja
    except RuntimeError:
        pass

    import functools

    @functools.wraps(originala)
    def wrap_triton(triton_kernel, /):
        if isinstance(triton_kernel, InterpretedFunction):
            return triton_kernel
        return originala(triton_kernel)

    wrap_triton._curs_pe_interpretor = True
    biblioteca_triton.wrap_triton = wrap_triton
    torch.library.wrap_triton = wrap_triton
    return True


def _triton_jit_interpretat(functie):
    """`triton.jit(functie)` dacă Triton rulează prin interpretor, altfel None."""
    try:
        import triton
        from triton.runtime.interpreter import InterpretedFunction
    except Exception:
        return None
    kernel = triton.jit(functie)
    return kernel if isinstance(kernel, InterpretedFunction) else None


# ---------------------------------------------------------------------------------------------
# Harta diagnozei
# ---------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PasHarta:
    """Un rând al hărții: simptomul, prima comandă (exact cum o scrii) și ce cauți în ce scoate."""

    simptom: str
    comanda: str
    cauti: str


HARTA_DIAGNOZEI: tuple[PasHarta, ...] = (
    PasHarta(
        "Se recompilează la fiecare apel",
        'TORCH_LOGS="recompiles_verbose" python program.py',
        "garda care a picat: un int/float Python, un atribut, train/eval, o formă 0/1",
    ),
    PasHarta(
        "Prea multe grafuri (întreruperi)",
        'TORCH_LOGS="graph_breaks" python program.py',
        "linia ta și motivul: print, .item(), if pe valoarea unui tensor, bibliotecă necunoscută",
    ),
    PasHarta(
        "Compilat, dar mai lent decât eager",
        'prof.export_chrome_trace("urma.json")',
        "„Torch-Compiled Region” scurte, cu Python eager între ele; apoi TORCH_LOGS=\"perf_hints\"",
    ),
    PasHarta(
        "Compilarea durează prea mult",
        "TORCH_TRACE=/tmp/urma python program.py; tlparse /tmp/urma/*.log",
        "câte compilări ([0/0], [0/1], …) și etapa lentă (compile_times())",
    ),
    PasHarta(
        "Rezultate diferite de eager",
        'torch.compile(f, backend="aot_eager")  # apoi …decomp_partition, inductor',
        "prima etapă care schimbă rezultatul; apoi CompilerBisector.do_bisect(proba)",
    ),
    PasHarta(
        "Nu înțeleg ce a făcut Dynamo",
        'with depyf.prepare_debug("dump"): f_compilat(x)',
        "gărzile, codul transformat (decompilat) și graful, în fișiere .py",
    ),
    PasHarta(
        "Codul meu nu intră în graf",
        "@torch.library.custom_op(...) + register_fake / triton_op + wrap_triton",
        "o operație cu nume și formă cunoscută, un singur nod: nicio întrerupere cu fullgraph=True",
    ),
    PasHarta(
        "Modelul meu nu e compilat deloc",
        'torch._dynamo.utils.counters["stats"]["unique_graphs"]  # după primul pas',
        "0 la DDP(nn.Sequential): torch.nn e sărit; compilează înainte de DDP sau învelește-l (08)",
    ),
    PasHarta(
        "Exportul îmi refuză modelul",
        "torch.export.export(m, (x,), strict=False)",
        "ramificare după date (→ torch.cond), dimensiune fixată de cod; apoi TORCH_LOGS=\"+dynamic\" (09)",
    ),
    PasHarta(
        "Generarea recompilează la fiecare jeton",
        'TORCH_LOGS="recompiles" python server.py',
        "garda pe lungimea cache-ului KV (crește cu torch.cat): prealocă-l, scrie la o poziție-tensor (11)",
    ),
    PasHarta(
        "Antrenarea compilată rămâne fără memorie",
        'torch.cuda.memory._dump_snapshot("m.pickle")  # după _record_memory_history()',
        "la vârf (pytorch.org/memory_viz): activări salvate sau refăcute; checkpoint pe blocuri, bugetul (12)",
    ),
)


def texte_harta() -> list[str]:
    """Toate textele scrise pe hartă, în ordine: titlul, apoi, pentru fiecare rând, simptomul,
    comanda și ce cauți."""
    texte = [_TITLU_HARTA]
    for pas in HARTA_DIAGNOZEI:
        texte += [pas.simptom, pas.comanda, pas.cauti]
    return texte


_TITLU_HARTA = "Când compilarea merge prost: simptom → prima comandă"


def _radacina() -> Path:
    return Path(__file__).resolve().parents[2]


def cale_harta() -> Path:
    """`assets/diagnoza/harta_diagnozei.png`."""
    return _radacina() / "assets" / "diagnoza" / "harta_diagnozei.png"


def figura_harta():
    """Desenează harta pe o pagină (A4 culcat) și întoarce figura matplotlib."""
    import matplotlib.pyplot as plt
    from matplotlib import patches

    randuri = len(HARTA_DIAGNOZEI)
    figura, ax = plt.subplots(figsize=(11.7, 8.3))
    ax.set_xlim(0, 100)
    ax.set_ylim(0, randuri * 10 + 8)
    ax.axis("off")
    ax.text(50, randuri * 10 + 5, _TITLU_HARTA, ha="center", va="center", fontsize=16, weight="bold")
    ax.text(15, randuri * 10 + 1, "simptomul", ha="center", fontsize=10, color="#555555")
    ax.text(65, randuri * 10 + 1, "prima comandă  ·  ce cauți în ce scoate", ha="center", fontsize=10, color="#555555")
    culori = ("#fde2e1", "#fff1c9", "#e3f1dc", "#dde9f7", "#efe2f5", "#e6e6e6", "#fbe3cf", "#d9efed")
    for i, pas in enumerate(HARTA_DIAGNOZEI):
        y = (randuri - 1 - i) * 10 + 1
        culoare = culori[i % len(culori)]
        ax.add_patch(patches.FancyBboxPatch((1, y + 1), 27, 7, boxstyle="round,pad=0.3", fc=culoare, ec="#444444"))
        # simptomul, rupt pe rânduri ca să încapă în căsuță
        ax.text(14.5, y + 4.5, textwrap.fill(pas.simptom, 24), ha="center", va="center", fontsize=10.5,
                weight="bold", linespacing=1.15)
        ax.annotate("", xy=(32, y + 4.5), xytext=(28.8, y + 4.5),
                    arrowprops=dict(arrowstyle="-|>", color="#444444", lw=1.5))
        ax.add_patch(patches.FancyBboxPatch((32.5, y + 1), 66.5, 7, boxstyle="round,pad=0.3", fc="white", ec="#444444"))
        ax.text(34, y + 6, pas.comanda, ha="left", va="center", fontsize=9.5, family="monospace", color="#08306b")
        ax.text(34, y + 2.8, pas.cauti, ha="left", va="center", fontsize=9.2, color="#333333")
    figura.tight_layout()
    return figura


def deseneaza_harta(cale: str | Path | None = None) -> Path:
    """Desenează harta și o scrie în `cale` (implicit `assets/diagnoza/harta_diagnozei.png`)."""
    import matplotlib.pyplot as plt

    cale = Path(cale) if cale is not None else cale_harta()
    cale.parent.mkdir(parents=True, exist_ok=True)
    figura = figura_harta()
    figura.savefig(cale, dpi=110, metadata={"Software": None})
    plt.close(figura)
    return cale


def arata_harta() -> None:
    """Afișează harta în notebook (o desenează dacă fișierul lipsește). Nu întoarce nimic."""
    from IPython.display import Image, display

    cale = cale_harta()
    if not cale.exists():
        cale = deseneaza_harta(Path(os.environ.get("TMPDIR", "/tmp")) / "harta_diagnozei.png")
    display(Image(filename=str(cale)))


if __name__ == "__main__":
    print(f"scris: {deseneaza_harta(sys.argv[1] if len(sys.argv) > 1 else None)}")
