"""`benchmarks/capitolul08.py` sub `torchrun`, pe procesor (gloo), în profilul rapid: o rulare cu
un rang (doar pasul DDP, referința scalării) și una cu două ranguri, fiecare cu fișierul ei de
cifre. Rularea se termină cu codul 0, tipărește o singură dată (doar rangul 0), în română și cu
numerele scrise ca în curs; cifrele au cheile „08.multi_gpu.…_n2”, grafurile lui DDPOptimizer pe
mărimea găleții sunt cele prezise de regulă, `optimize_ddp=False` nu suprapune niciun all-reduce
cu pasul înapoi, iar DDP eager și DDPOptimizer da (modelul rapid are mai multe găleți). Plus cele
două numărători ale suprapunerii pe exemple scrise de mână: urma profilerului (drumul GPU-urilor)
și graful pasului înapoi (python_reducer)."""

import functools
import importlib.util
import json
import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest
import torch
import torch.distributed as dist

from curs_compilare.capitole.cap08_distribuit import ReteaBlocuri, grafuri_prezise, octeti_pe_strat

pytestmark = pytest.mark.skipif(not dist.is_available() or not dist.is_gloo_available(),
                                reason="torch.distributed cu gloo lipsește")

RADACINA = Path(__file__).resolve().parent.parent
SCRIPT = RADACINA / "benchmarks" / "capitolul08.py"
#: Cât poate dura, cel mult, o rulare (pe două nuclee, cea cu două ranguri ia vreo 40 s).
LIMITA_S = 240


@functools.cache
def _scriptul():
    """Modulul scriptului, importat după cale (fără să ruleze `main`). Modulul intră în
    `sys.modules` înainte să ruleze: clasele lui de date îl caută acolo."""
    nume = "benchmark_capitolul08"
    specificatie = importlib.util.spec_from_file_location(nume, SCRIPT)
    modul = importlib.util.module_from_spec(specificatie)
    sys.modules[nume] = modul
    specificatie.loader.exec_module(modul)
    return modul


def _ruleaza(ranguri: int, fisier: Path, *argumente: str) -> tuple[int, str, str]:
    """`python -m torch.distributed.run --nproc-per-node=N benchmarks/capitolul08.py --rapid ...`,
    cu cifrele în `fisier`, fără GPU (gloo). Întoarce codul de ieșire, ieșirea standard (rangurile
    scriu în ea) și erorile. Un proces care depășește limita e oprit cu tot grupul lui (rangurile)."""
    mediu = {**os.environ, "CURS_FISIER_CIFRE": str(fisier), "CUDA_VISIBLE_DEVICES": "", "PYTHONUNBUFFERED": "1"}
    comanda = [sys.executable, "-m", "torch.distributed.run", "--standalone", f"--nproc-per-node={ranguri}",
               str(SCRIPT), "--rapid", *argumente]
    proces = subprocess.Popen(comanda, cwd=RADACINA, env=mediu, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, encoding="utf-8", start_new_session=True)
    try:
        iesire, erori = proces.communicate(timeout=LIMITA_S)
    except subprocess.TimeoutExpired:
        os.killpg(proces.pid, signal.SIGKILL)  # grupul procesului pornit aici: torchrun și rangurile lui
        iesire, erori = proces.communicate()
        pytest.fail(f"Rularea cu {ranguri} ranguri n-a terminat în {LIMITA_S} s.\n{iesire[-3000:]}\n{erori[-3000:]}")
    return proces.returncode, iesire, erori


def _cifrele(fisier: Path) -> dict:
    return {c["cheie"]: c for c in map(json.loads, fisier.read_text(encoding="utf-8").splitlines())}


@pytest.fixture(scope="module")
def rulare(tmp_path_factory):
    """Rularea cu un rang (doar pasul DDP), apoi cea cu două ranguri, cu prima drept referință."""
    dosar = tmp_path_factory.mktemp("capitolul08")
    cifre_1, cifre_2 = dosar / "cifre_n1.jsonl", dosar / "cifre_n2.jsonl"
    cod, iesire, erori = _ruleaza(1, cifre_1, "--parti", "pas")
    assert cod == 0, f"rularea cu un rang a eșuat:\n{iesire[-3000:]}\n{erori[-3000:]}"
    cod, iesire, erori = _ruleaza(2, cifre_2, "--referinta-1", str(cifre_1))
    return {"cod": cod, "iesire": iesire, "erori": erori, "cifre_1": _cifrele(cifre_1), "cifre": _cifrele(cifre_2)}


def test_rularea_cu_doua_ranguri_tipareste_o_data_in_romana(rulare):
    from curs_compilare import cifre

    assert rulare["cod"] == 0, f"{rulare['iesire'][-3000:]}\n{rulare['erori'][-3000:]}"
    iesire = rulare["iesire"]
    assert "2 ranguri, gloo, pe procesor" in iesire and "compilatorul din ranguri: aot_eager" in iesire
    for titlu in ("1. PASUL DE ANTRENARE DDP", "2. SUPRAPUNEREA ALL-REDUCE-URILOR", "3. GRAFURILE LUI DDPOptimizer",
                  "4. FSDP2 FAȚĂ DE DDP", "5. SCALAREA", "Gata în"):
        assert iesire.count(titlu) == 1, titlu  # doar rangul 0 tipărește
    assert "din scalarea liniară" in iesire and " din " in iesire
    assert cifre.probleme_de_format(iesire) == []
    assert not any(c in iesire for c in "\u015f\u015e\u0163\u0162")  # s, S, t, T cu sedilă


def test_cifrele_au_cheile_numarul_de_ranguri_si_backendul(rulare):
    cifrele = rulare["cifre"]
    assert cifrele and all(cheie.startswith("08.multi_gpu.") and cheie.endswith("_n2") for cheie in cifrele)
    for mod in ("eager", "compilat_ddpoptimizer", "compilat_un_graf", "compilat_python_reducer"):
        pas = cifrele[f"08.multi_gpu.pas_{mod}_ms_n2"]
        assert pas["unitate"] == "ms" and pas["valoare"] > 0 and pas["depinde_de_procesor"]
        assert pas["interval"][0] <= pas["valoare"] <= pas["interval"][1]
        assert "2 ranguri" in pas["descriere"] and "gloo" in pas["descriere"]
        assert cifrele[f"08.multi_gpu.debit_pe_rang_{mod}_n2"]["unitate"] == "exemple/s"
        assert cifrele[f"08.multi_gpu.scalare_{mod}_n2"]["unitate"] == "%"
        assert cifrele[f"08.multi_gpu.scalare_{mod}_n2"]["valoare"] > 0
    assert cifrele["08.multi_gpu.accelerare_compilat_ddpoptimizer_n2"]["unitate"] == "×"
    assert "08.multi_gpu.debit_pe_rang_eager_n1" in rulare["cifre_1"]
    # FSDP2: fiecare rang ține jumătate din parametrii pe care DDP îi ține întregi
    ddp = cifrele["08.multi_gpu.parametri_rang_ddp_mib_n2"]["valoare"]
    fsdp = cifrele["08.multi_gpu.parametri_rang_fsdp2_mib_n2"]["valoare"]
    assert fsdp == pytest.approx(ddp / 2, rel=0.01)
    assert cifrele["08.multi_gpu.compilari_fsdp2_n2"]["valoare"] == 1  # cu strat de intrare, nicio recompilare


def test_grafurile_sunt_cele_prezise_de_regula(rulare):
    modul = _scriptul()
    cifrele = rulare["cifre"]
    octeti = octeti_pe_strat(ReteaBlocuri(*modul.MODEL_GALETI))
    for galeata in modul.GALETI_MB:
        assert cifrele[f"08.multi_gpu.grafuri_galeata_{galeata}mb_n2"]["valoare"] == grafuri_prezise(octeti, galeata)
    rapid = modul.configuratie_pentru(pe_gpu=False, rapid=True)
    prezise = grafuri_prezise(octeti_pe_strat(ReteaBlocuri(rapid.latime, rapid.blocuri)), rapid.galeata_mb)
    assert cifrele["08.multi_gpu.grafuri_compilat_ddpoptimizer_n2"]["valoare"] == prezise
    assert cifrele["08.multi_gpu.grafuri_compilat_un_graf_n2"]["valoare"] == 1


def test_suprapunerea_all_reduce_urilor(rulare):
    modul = _scriptul()
    cifrele = rulare["cifre"]
    valoare = lambda nume: cifrele[f"08.multi_gpu.{nume}_n2"]["valoare"]  # noqa: E731
    assert valoare("suprapuse_compilat_un_graf") == 0 and valoare("all_reduce_compilat_un_graf") >= 1
    rapid = modul.configuratie_pentru(pe_gpu=False, rapid=True)
    galeti = grafuri_prezise(octeti_pe_strat(ReteaBlocuri(rapid.latime, rapid.blocuri)), rapid.galeata_mb)
    assert galeti > 1  # modelul rapid are mai multe găleți: are ce suprapune
    for mod in ("eager", "compilat_ddpoptimizer"):
        assert valoare(f"all_reduce_{mod}") > 1
        assert 0 < valoare(f"suprapuse_{mod}") < valoare(f"all_reduce_{mod}"), mod  # ultimul pornește după calcul
    # python_reducer cu „aot_eager”: fiecare all-reduce e așteptat imediat, câte unul pe parametru
    parametri = len(list(ReteaBlocuri(rapid.latime, rapid.blocuri).parameters()))
    assert valoare("all_reduce_compilat_python_reducer") == parametri
    assert valoare("suprapuse_compilat_python_reducer") == 0
    assert "din" in rulare["iesire"].split("2. SUPRAPUNEREA")[1].split("3. GRAFURILE")[0]


def test_suprapunerea_din_urma_profilerului():
    """Drumul GPU-urilor (NCCL), pe o urmă scrisă de mână: un kernel AllReduce care rulează în
    același timp cu un kernel de calcul al pasului înapoi se numără, unul care rulează doar lângă
    copierea gradienților în găleți (lansată din `AccumulateGrad`) sau după calcul nu; kernel-urile
    aparțin pasului după momentul lansării lor, de pe procesor. Fără noduri autograd în urmă
    (autograd-ul compilat), orice kernel lansat în pasul înapoi e calcul."""
    modul = _scriptul()
    fir = {"pid": 1, "tid": 7}

    def kernel(nume, ts, dur, corelatie):
        return {"ph": "X", "cat": "kernel", "name": nume, "ts": ts, "dur": dur, "pid": 0, "tid": "stream 7",
                "args": {"correlation": corelatie}}

    def lansare(ts, corelatie):
        return {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "ts": ts, "dur": 1, **fir,
                "args": {"correlation": corelatie}}

    def marcaj(nume, ts, dur):
        return {"ph": "X", "cat": "user_annotation", "name": nume, "ts": ts, "dur": dur, "pid": 1, "tid": 1}

    def nod(nume, ts, dur):
        return {"ph": "X", "cat": "cpu_op", "name": modul.NOD_AUTOGRAD + nume, "ts": ts, "dur": dur, **fir}

    all_reduce = "ncclDevKernel_AllReduce_Sum_f32_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
    evenimente = [
        # primul pas: un all-reduce lângă calcul, unul lângă copierea din AccumulateGrad
        marcaj(modul.MARCAJ_PAS, 0, 100), marcaj(modul.MARCAJ_INAPOI, 20, 60),
        lansare(5, 1), kernel("gemm_inainte", 6, 10, 1),                 # pasul înainte
        nod("AddmmBackward0", 24, 20),
        lansare(25, 2), kernel("gemm_inapoi_1", 30, 20, 2),              # calcul înapoi, 30–50
        lansare(40, 3), kernel(all_reduce, 45, 20, 3),                   # se suprapune cu calculul
        lansare(42, 4), kernel("gemm_inapoi_2", 50, 10, 4),              # calcul înapoi, 50–60
        nod("torch::autograd::AccumulateGrad", 60, 15),
        lansare(61, 5), kernel("elementwise_kernel_copy", 70, 12, 5),    # copierea în găleată, 70–82
        lansare(66, 6), kernel(all_reduce, 70, 10, 6),                   # doar lângă copiere: nu
        lansare(85, 7), kernel("sgd_kernel", 85, 5, 7),                  # pasul optimizatorului
        # al doilea pas, fără noduri autograd: un all-reduce lângă calcul, unul după
        marcaj(modul.MARCAJ_PAS, 200, 100), marcaj(modul.MARCAJ_INAPOI, 220, 40),
        lansare(225, 8), kernel("triton_poi_fused_gelu_backward_0", 230, 20, 8),
        lansare(228, 9), kernel(all_reduce, 240, 20, 9),
        lansare(255, 10), kernel(all_reduce, 260, 20, 10),
    ]
    assert modul.suprapuse_din_urma(evenimente) == [(1, 2), (1, 2)]
    assert modul.suprapuse_din_urma([]) == []


def test_suprapunerea_din_graful_pasului_inapoi():
    """`python_reducer`: un all-reduce cu calcul între el și `wait_tensor`-ul lui se suprapune,
    unul așteptat imediat nu."""
    modul = _scriptul()
    graf = torch.fx.Graph()
    x = graf.placeholder("x")
    functionale = torch.ops._c10d_functional
    primul = graf.call_function(functionale.all_reduce.default, (x, "sum", "0"))
    produs = graf.call_function(torch.ops.aten.mm.default, (x, x))
    asteptat_1 = graf.call_function(functionale.wait_tensor.default, (primul,))
    al_doilea = graf.call_function(functionale.all_reduce.default, (produs, "sum", "0"))
    asteptat_2 = graf.call_function(functionale.wait_tensor.default, (al_doilea,))
    graf.output((asteptat_1, asteptat_2))
    assert modul.suprapuse_in_graf(torch.fx.GraphModule(torch.nn.Module(), graf)) == (1, 2)
