"""Pornirea rangurilor din capitolul 08: o funcție scrisă într-o celulă rulează în N procese,
ca sub `torchrun`, iar notebook-ul primește înapoi ce a întors fiecare rang.

De ce e nevoie de o unealtă. Antrenarea pe mai multe GPU-uri rulează câte un proces pe GPU
(un **rang**, *rank*); procesele vorbesc între ele prin `torch.distributed` (gloo pe procesor, NCCL pe
GPU-uri). Un notebook e însă un singur proces. Rangurile pornesc ca interpretoare Python noi (ca
metoda `spawn` a lui `multiprocessing`; `fork` ar copia și starea CUDA a notebook-ului, care nu
se poate folosi într-un proces copil). Un proces nou nu vede ce ai definit în notebook: o funcție
se trimite de obicei prin referință (după modul și nume), iar modulul unei celule e `__main__`-ul kernel-ului
Jupyter, pe care alt proces nu-l poate importa. De aceea `ruleaza_pe_ranguri` trimite funcția
**prin valoare**, cu `cloudpickle` (codul ei, plus funcțiile, clasele și valorile din notebook pe
care le folosește), iar fiecare rang pornește cu `python -m curs_compilare.capitole.cap08_ranguri`,
un modul importabil al cursului, care o primește. Așa merge la fel dintr-un notebook, dintr-un
script (fără `if __name__ == "__main__":`, de care `multiprocessing` ar avea nevoie) și din teste.

Ce face `ruleaza_pe_ranguri(functie, *argumente, ranguri=2)`:

- pornește `ranguri` procese, fiecare cu `torch.distributed` inițializat (NCCL, câte
  un GPU pe rang, când mașina are cel puțin atâtea GPU-uri; altfel gloo, pe procesor), apoi
  cheamă `functie(*argumente)` în fiecare; rangul și numărul lor le afli, ca sub `torchrun`, cu
  `dist.get_rank()` și `dist.get_world_size()`;
- întoarce lista valorilor, în ordinea rangurilor (tensorii, aduși pe procesor), și arată ce a
  tipărit fiecare rang, cu „[rangul N]” în față (altfel, textul ar ajunge în terminalul din care
  a pornit Jupyter, nu în notebook);
- nu se blochează niciodată: un rang care aruncă o excepție, care se oprește singur sau care nu
  termină în `limita_s` secunde oprește tot, iar `EroareRanguri` spune, în română, ce s-a
  întâmplat cu fiecare rang. Un rang rămas să aștepte o operație colectivă (de exemplu un
  `all_reduce`) la care un rang oprit nu mai vine e oprit după `gratie_s` secunde.
"""

from __future__ import annotations

import contextlib
import datetime as dt
import importlib
import io
import os
import pickle
import socket
import subprocess
import sys
import tempfile
import time
import traceback
import types
from dataclasses import dataclass
from pathlib import Path

__all__ = ["EroareRanguri", "StareRang", "alege_backend", "in_rangurile_pornite", "rangurile_deja_pornite",
           "ruleaza_pe_ranguri"]


@dataclass
class StareRang:
    """Ce s-a întâmplat cu un rang: `fel` e „gata” (a întors `valoare`), „eroare” (a aruncat
    `exceptie`, cu `mesaj` și `traceback`), „oprit” (procesul s-a terminat fără rezultat, cu
    `cod_iesire`), „blocat” (n-a terminat în limită și a fost oprit) sau „așteptare” (a fost oprit
    după ce alt rang eșuase). `iesire` e textul tipărit de rang."""

    rang: int
    fel: str
    valoare: object = None
    exceptie: str | None = None
    mesaj: str | None = None
    traceback: str | None = None
    cod_iesire: int | None = None
    secunde: float = 0.0
    iesire: str = ""

    def in_romana(self) -> str:
        """O propoziție despre rang."""
        if self.fel == "gata":
            return f"rangul {self.rang} a terminat în {self.secunde:.1f} s"
        if self.fel == "eroare":
            mesaj = (self.mesaj or "").strip().splitlines()
            return f"rangul {self.rang} a aruncat {self.exceptie}" + (f": {mesaj[0][:300]}" if mesaj else "")
        if self.fel == "oprit":
            return (f"rangul {self.rang} s-a oprit fără să întoarcă ceva (codul de ieșire {self.cod_iesire}: "
                    "procesul a fost închis sau a căzut, de exemplu din lipsă de memorie)")
        if self.fel == "blocat":
            return (f"rangul {self.rang} n-a terminat în {self.secunde:.0f} s și l-am oprit (de obicei, un rang "
                    "așteaptă o operație colectivă, ca all_reduce sau barrier, la care alt rang nu ajunge)")
        return (f"rangul {self.rang} aștepta încă după ce alt rang eșuase (probabil o operație colectivă "
                "la care rangul oprit nu mai vine) și l-am oprit")


class EroareRanguri(RuntimeError):
    """Cel puțin un rang n-a terminat bine; `stari` spune ce a făcut fiecare (`StareRang`)."""

    def __init__(self, stari: list[StareRang]):
        self.stari = stari
        rele = [s for s in stari if s.fel != "gata"]
        randuri = [f"Rularea pe {len(stari)} ranguri n-a reușit:"] + [f"  - {s.in_romana()}" for s in stari]
        cu_traceback = next((s for s in rele if s.fel == "eroare" and s.traceback), None)
        if cu_traceback is not None:
            ultimele = [r for r in cu_traceback.traceback.strip().splitlines() if r.strip()][-4:]
            randuri.append(f"Unde, în rangul {cu_traceback.rang} (ultimele rânduri):")
            randuri += [f"    {r}" for r in ultimele]
        oprit = next((s for s in rele if s.fel == "oprit" and s.iesire.strip()), None)
        if oprit is not None:
            ultimele = [r for r in oprit.iesire.strip().splitlines() if r.strip()][-3:]
            randuri.append(f"Ultimele rânduri tipărite de rangul {oprit.rang}:")
            randuri += [f"    {r[:300]}" for r in ultimele]
        super().__init__("\n".join(randuri))


def alege_backend(ranguri: int) -> str:
    """„nccl” când mașina are cel puțin `ranguri` GPU-uri NVIDIA (câte unul pe rang), altfel
    „gloo”, pe procesor: pe un singur GPU, două ranguri NCCL ar împărți același GPU, ceea ce
    NCCL nu acceptă, așa că drumul cu mai multe procese rulează pe procesor."""
    import torch
    import torch.distributed as dist

    if torch.cuda.is_available() and torch.cuda.device_count() >= ranguri and dist.is_nccl_available():
        return "nccl"
    return "gloo"


def _serializeaza(obiect) -> bytes:
    """`cloudpickle.dumps`, plus modulele-obiect ale lui PyTorch trimise după nume. Configurațiile
    (`torch._dynamo.config`, `torch._inductor.config`) sunt instanțe ale unei subclase a lui
    `ModuleType`, pe care cloudpickle n-o recunoaște ca modul: o funcție care scrie
    `torch._dynamo.config.patch(...)` n-ar putea fi trimisă. Un modul din `sys.modules` se
    importă din nou în rang, cu același nume."""
    import cloudpickle

    class _Impachetator(cloudpickle.Pickler):
        def reducer_override(self, obj):
            if (isinstance(obj, types.ModuleType) and type(obj) is not types.ModuleType
                    and sys.modules.get(getattr(obj, "__name__", None)) is obj):
                return importlib.import_module, (obj.__name__,)
            return super().reducer_override(obj)

    tampon = io.BytesIO()
    _Impachetator(tampon).dump(obiect)
    return tampon.getvalue()


def _port_liber() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _pe_procesor(valoare):
    """Valoarea, cu tensorii aduși pe procesor (părintele nu trebuie să atingă GPU-ul rangului)."""
    import torch

    if isinstance(valoare, torch.Tensor):
        return valoare.detach().cpu()
    if isinstance(valoare, dict):
        return {k: _pe_procesor(v) for k, v in valoare.items()}
    if isinstance(valoare, (list, tuple)) and type(valoare) in (list, tuple):
        return type(valoare)(_pe_procesor(v) for v in valoare)
    return valoare


def _scrie_atomic(cale: Path, date: bytes) -> None:
    temporar = cale.with_suffix(".tmp")
    temporar.write_bytes(date)
    os.replace(temporar, cale)


def _lucrator(rang: int, lume: int, adresa: str, backend: str, dosar: str, limita_s: float, fire: int) -> None:
    """Corpul unui rang (rulează în procesul nou; ieșirea lui merge deja în fișierul rangului):
    `torch.distributed` inițializat, funcția primită prin valoare, rezultatul scris pe disc."""
    dosar = Path(dosar)
    rezultat = dosar / f"rezultat_{rang}.pkl"
    try:
        import cloudpickle
        import torch
        import torch.distributed as dist

        torch.set_num_threads(fire)
        if backend == "nccl":
            torch.cuda.set_device(rang)
        dist.init_process_group(backend, init_method=adresa, rank=rang, world_size=lume,
                                timeout=dt.timedelta(seconds=max(limita_s, 10)))
        try:
            # Toate rangurile își termină legăturile înainte ca vreunul să meargă mai departe: fără
            # această barieră, un rang rapid putea termina și închide conexiunile cât timp altul
            # încă le deschidea („Gloo connectFullMesh failed … Connection closed by peer”).
            if backend == "nccl":
                dist.barrier(device_ids=[rang])
            else:
                dist.barrier()
            functie, argumente = cloudpickle.loads((dosar / "functie.pkl").read_bytes())
            valoare = functie(*argumente)
            date = _serializeaza(("gata", _pe_procesor(valoare)))
        finally:
            if dist.is_initialized():
                dist.destroy_process_group()
        _scrie_atomic(rezultat, date)
    except BaseException as e:  # noqa: BLE001 — orice eroare a rangului ajunge în notebook
        try:
            date = pickle.dumps(("eroare", type(e).__name__, str(e), traceback.format_exc()))
        except Exception:  # noqa: BLE001
            date = pickle.dumps(("eroare", type(e).__name__, repr(e), ""))
        _scrie_atomic(rezultat, date)
    finally:
        sys.stdout.flush()
        sys.stderr.flush()


def _citeste_rezultatul(cale: Path):
    import cloudpickle

    try:
        return cloudpickle.loads(cale.read_bytes())
    except Exception as e:  # noqa: BLE001
        return ("eroare", "EroareLaCitire", f"rezultatul rangului nu s-a putut citi: {e}", "")


def ruleaza_pe_ranguri(functie, *argumente, ranguri: int = 2, limita_s: float = 120.0,
                       gratie_s: float = 10.0, backend: str | None = None,
                       arata_iesirea: bool = True) -> list:
    """Rulează `functie(*argumente)` în `ranguri` procese cu `torch.distributed` inițializat și
    întoarce valorile lor, în ordinea rangurilor. Vezi descrierea modulului. Aruncă
    `EroareRanguri` (cu ce a făcut fiecare rang) dacă un rang aruncă o excepție, se oprește
    singur sau nu termină în `limita_s` secunde; niciun proces nu rămâne pornit după apel."""
    if ranguri < 1:
        raise ValueError(f"Numărul de ranguri trebuie să fie cel puțin 1, nu {ranguri}.")
    try:
        functie_serializata = _serializeaza((functie, argumente))
    except Exception as e:  # noqa: BLE001
        raise TypeError(
            "Funcția sau argumentele ei nu se pot trimite altor procese (cloudpickle: "
            f"{type(e).__name__}: {str(e).splitlines()[0][:200] if str(e) else ''}). Trimite doar valori simple, "
            "tensori, module și funcții; fișierele deschise, firele de execuție și generatoarele nu trec dintr-un proces în altul."
        ) from None
    backend = backend or alege_backend(ranguri)
    # Nucleele pe care are voie să ruleze procesul (sub profilul Colab, două), împărțite între
    # ranguri: procesele copil moștenesc aceeași afinitate.
    nuclee = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else (os.cpu_count() or 2)
    fire = max(1, nuclee // ranguri)
    adresa = f"tcp://127.0.0.1:{_port_liber()}"
    # Rangurile văd aceleași module ca procesul acesta (de exemplu, un modul al cursantului
    # alături de notebook): căile lui sys.path, cu dosarul curent în locul lui "".
    cai = [c or os.getcwd() for c in sys.path]
    mediu = {**os.environ, "PYTHONPATH": os.pathsep.join(dict.fromkeys(cai))}
    with tempfile.TemporaryDirectory(prefix="ranguri_") as dosar:
        (Path(dosar) / "functie.pkl").write_bytes(functie_serializata)
        fisiere = [open(Path(dosar) / f"iesire_{rang}.txt", "wb") for rang in range(ranguri)]
        procese = []
        start = time.monotonic()
        try:
            for rang in range(ranguri):
                procese.append(subprocess.Popen(
                    [sys.executable, "-u", "-m", __name__, str(rang), str(ranguri), adresa, backend, dosar,
                     str(limita_s), str(fire)],
                    stdin=subprocess.DEVNULL, stdout=fisiere[rang], stderr=subprocess.STDOUT, env=mediu))
            stari: dict[int, StareRang] = {}
            prima_eroare = None
            while len(stari) < ranguri:
                acum = time.monotonic()
                for rang, proces in enumerate(procese):
                    if rang in stari or proces.poll() is None:
                        continue
                    cale = Path(dosar) / f"rezultat_{rang}.pkl"
                    if cale.is_file():
                        rezultat = _citeste_rezultatul(cale)
                        if rezultat[0] == "gata":
                            stari[rang] = StareRang(rang, "gata", valoare=rezultat[1], secunde=acum - start)
                        else:
                            _, nume, mesaj, urma = rezultat
                            stari[rang] = StareRang(rang, "eroare", exceptie=nume, mesaj=mesaj, traceback=urma,
                                                    secunde=acum - start)
                    else:
                        stari[rang] = StareRang(rang, "oprit", cod_iesire=proces.returncode, secunde=acum - start)
                    if stari[rang].fel != "gata" and prima_eroare is None:
                        prima_eroare = acum
                ramase = [r for r in range(ranguri) if r not in stari]
                if not ramase:
                    break
                depasit = acum - start > limita_s
                dupa_eroare = prima_eroare is not None and acum - prima_eroare > gratie_s
                if depasit or dupa_eroare:
                    for rang in ramase:
                        stari[rang] = StareRang(rang, "blocat" if prima_eroare is None else "așteptare",
                                                secunde=acum - start)
                    break
                time.sleep(0.05)
        finally:
            for proces in procese:
                if proces.poll() is None:
                    proces.kill()
                try:
                    proces.wait(timeout=20)
                except subprocess.TimeoutExpired:
                    pass
            for fisier in fisiere:
                fisier.close()
        for rang, stare in stari.items():
            cale = Path(dosar) / f"iesire_{rang}.txt"
            stare.iesire = cale.read_text(encoding="utf-8", errors="replace") if cale.is_file() else ""
    ordonate = [stari[r] for r in range(ranguri)]
    if arata_iesirea:
        for stare in ordonate:
            for rand in stare.iesire.rstrip().splitlines():
                print(f"[rangul {stare.rang}] {rand}")
    if any(s.fel != "gata" for s in ordonate):
        raise EroareRanguri(ordonate)
    return [s.valoare for s in ordonate]


def in_rangurile_pornite(functie, *argumente, ranguri: int | None = None, **_optiuni) -> list:
    """Locul lui `ruleaza_pe_ranguri` într-un rang deja pornit (vezi `rangurile_deja_pornite`): nu
    pornește alte procese, ci rulează `functie(*argumente)` chiar aici, în fiecare rang, și adună
    valorile tuturor rangurilor cu `all_gather_object`, în lista pe care ar fi întors-o
    `ruleaza_pe_ranguri`. Celelalte opțiuni ale pornirii (limita, backend-ul, ieșirea) nu mai au rost."""
    import torch.distributed as dist

    if ranguri is not None and ranguri != dist.get_world_size():
        raise ValueError(f"Experimentul cere {ranguri} ranguri, dar pornirea are {dist.get_world_size()}.")
    valori = [None] * dist.get_world_size()
    dist.all_gather_object(valori, _pe_procesor(functie(*argumente)))
    return valori


@contextlib.contextmanager
def rangurile_deja_pornite(*module):
    """Cât ține blocul, `ruleaza_pe_ranguri` din fiecare modul dat e `in_rangurile_pornite`: funcțiile
    acelor module, chemate dintr-un rang, lucrează în rangurile deja pornite în loc să pornească altele.
    Așa încap mai multe experimente (sau verificări) într-o singură pornire: o pornire plătește procesele
    noi, importurile și prima compilare, un experiment în plus doar cât lucrează el."""
    originale = [m.ruleaza_pe_ranguri for m in module]
    try:
        for modul in module:
            modul.ruleaza_pe_ranguri = in_rangurile_pornite
        yield
    finally:
        for modul, originala in zip(module, originale):
            modul.ruleaza_pe_ranguri = originala


def main(argv=None) -> None:
    """Intrarea unui rang: `python -m curs_compilare.capitole.cap08_ranguri RANG LUME ADRESA
    BACKEND DOSAR LIMITA_S FIRE` (o pornește `ruleaza_pe_ranguri`, nu un om)."""
    rang, lume, adresa, backend, dosar, limita_s, fire = (argv or sys.argv[1:])[:7]
    _lucrator(int(rang), int(lume), adresa, backend, dosar, float(limita_s), int(fire))


if __name__ == "__main__":
    main()
