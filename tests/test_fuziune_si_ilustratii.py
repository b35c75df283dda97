"""Lanțurile capitolului 03, octeții lor, cronologia kernel-urilor și desenele bucătăriei."""

import os
import subprocess
import sys
from pathlib import Path

import matplotlib

matplotlib.use("Agg")

import pytest
import torch
from curs_compilare.capitole import cap03_fuziune as fuziune
from curs_compilare.instructor import ilustratii
from curs_compilare import grafice
from curs_compilare.grafice import grafic_cronologie
from curs_compilare.masurare import EvenimentKernel, cronologie_kerneluri, nume_scurt_kernel

RADACINA = Path(__file__).resolve().parent.parent


def test_lant_punctual_si_lant_de_operatii_coincid():
    x = torch.randn(1000)
    torch.testing.assert_close(fuziune.lant_de_operatii(fuziune.NUMAR_OPERATII_LANT)(x), fuziune.lant_punctual(x))
    lant = fuziune.lant_de_operatii(6)
    assert lant.sursa.count("x = ") == 6 and lant.__name__ == "lant_6_operatii"
    assert lant.__code__ is not fuziune.lant_de_operatii(6).__code__  # cod propriu, cache Dynamo propriu
    import inspect

    assert inspect.getsourcefile(lant) == fuziune.__file__  # are fișier sursă: Dynamo o urmărește direct
    with pytest.raises(ValueError):
        fuziune.lant_de_operatii(0)


def test_octeti_lant():
    assert fuziune.octeti_lant(1000, 4) == (32_000, 8_000)
    assert fuziune.octeti_lant(10, 1, octeti_pe_element=2) == (40, 40)


def test_masoara_pe_dimensiuni_compileaza_static_fara_limita():
    compilat = torch.compile(fuziune.lant_punctual, dynamic=False)
    dimensiuni = [2**k for k in range(6, 16)]  # 10 dimensiuni > limita implicită de 8
    rezultate = fuziune.masoara_pe_dimensiuni(
        {"eager": fuziune.lant_punctual, "compilat": compilat}, dimensiuni, "cpu", timp_minim_s=0.01
    )
    assert [len(v) for v in rezultate.values()] == [10, 10]
    assert all(m.mediana_s > 0 for v in rezultate.values() for m in v)
    torch._dynamo.reset()


@pytest.mark.parametrize(
    "nume, asteptat",
    [
        ("void at::native::vectorized_elementwise_kernel<4, at::native::AUnaryFunctor<float, float, float, "
         "at::native::binary_internal::MulFunctor<float> >, std::array<char*, 2ul> >(int)", "Mul"),
        ("void at::native::vectorized_elementwise_kernel<4, at::native::CUDAFunctorOnSelf_add<float>, "
         "std::array<char*, 2ul> >(int, at::native::CUDAFunctorOnSelf_add<float>)", "add"),
        ("void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, at::native::MaxOps<float>, "
         "unsigned int, float, 4, 4> >(at::native::ReduceOp<float>)", "Max"),
        ("void at::native::(anonymous namespace)::cunn_SoftMaxForward<4, float, float, float, "
         "at::native::(anonymous namespace)::SoftMaxForwardEpilogue>(float*, float const*, int)",
         "cunn_SoftMaxForward"),
        ("triton_poi_fused_add_mul_relu_0", "triton_poi_fused_add_mul_relu_0"),
        ("aten::mul", "aten::mul"),
    ],
)
def test_nume_scurt_kernel(nume, asteptat):
    assert nume_scurt_kernel(nume) == asteptat


def test_cronologia_eager_are_un_kernel_pe_operatie_si_graficul_se_deseneaza():
    x = torch.randn(4096)
    eager = cronologie_kerneluri(fuziune.lant_punctual, x)
    assert [e.nume for e in eager] == ["aten::mul", "aten::add", "aten::relu", "aten::mul"]
    assert eager[0].inceput_us == 0
    assert all(b.inceput_us >= a.inceput_us for a, b in zip(eager, eager[1:]))
    compilat = [EvenimentKernel("cpp_fused_add_mul_relu_0", 0.0, 5.0)]
    ax = grafic_cronologie({"eager": eager, "compilat": compilat}, titlu="test")
    etichete = [t.get_text() for t in ax.get_yticklabels()]
    assert "eager\n(4 kernel-uri)" in etichete and "compilat\n(1 kernel)" in etichete


def test_interpretorul_triton_pornit_fara_gpu():
    cod = "import curs_compilare, os; print(os.environ.get('TRITON_INTERPRET'))"
    mediu = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    mediu["CUDA_VISIBLE_DEVICES"] = ""
    iesire = subprocess.run([sys.executable, "-c", cod], env=mediu, capture_output=True, text=True, check=True)
    assert iesire.stdout.strip() == "1"
    mediu["TRITON_INTERPRET"] = "0"  # alegerea ta explicită e respectată
    iesire = subprocess.run([sys.executable, "-c", cod], env=mediu, capture_output=True, text=True, check=True)
    assert iesire.stdout.strip() == "0"


def test_ilustratiile_se_regenereaza(tmp_path):
    scrise = ilustratii.regenereaza(tmp_path)
    assert sorted(p.name for p in scrise) == sorted(ilustratii.ILUSTRATII)
    for cale in scrise:
        assert cale.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
        # imaginile din depozit există și au aceleași dimensiuni ca cele proaspăt desenate
        din_depozit = RADACINA / "assets" / "bucataria" / cale.name
        assert din_depozit.exists(), f"lipsește {din_depozit}: rulează make ilustratii"
        assert _dimensiuni_png(din_depozit) == _dimensiuni_png(cale)


def test_varianta_necunoscuta():
    with pytest.raises(ValueError):
        ilustratii.deseneaza_bucataria("cuptor")


def _dimensiuni_png(cale):
    date = Path(cale).read_bytes()
    return int.from_bytes(date[16:20], "big"), int.from_bytes(date[20:24], "big")


def test_grafic_latime_banda_scrie_procentul_din_plafon():
    from curs_compilare.grafice import grafic_latime_banda

    ax = grafic_latime_banda({"eager": 1000.0, "compilat": 4000.0}, plafon=4000.0, titlu="t")
    texte = [t.get_text() for t in ax.texts]
    assert any("1 000 GB/s (25% din plafon)" in t for t in texte)
    assert any("4 000 GB/s (100% din plafon)" in t for t in texte)
    assert [t.get_text() for t in ax.get_yticklabels()] == ["eager", "compilat"]


def test_cronologia_pune_eticheta_langa_bara_ingusta():
    compilat = [EvenimentKernel("triton_poi_fused_add_mul_relu_0", 0.0, 36.0)]
    eager = [EvenimentKernel("Mul", 0.0, 33.0), EvenimentKernel("add", 116.0, 33.0), EvenimentKernel("Mul", 218.0, 33.0)]
    ax = grafic_cronologie({"eager": eager, "compilat": compilat})
    texte = {t.get_text(): t for t in ax.texts}
    assert texte["triton_poi_fused_add_mul_relu_0"].get_ha() == "left"  # nu încape în bară: stă în dreapta ei
    assert texte["add"].get_ha() == "center"


# --- Lanțurile nu împart nimic în Dynamo ------------------------------------------------------


def test_lanturile_au_cache_dynamo_si_forme_vazute_separate():
    """Cache-ul Dynamo stă pe obiectul de cod: două lanțuri de aceeași lungime au coduri diferite,
    deci compilări separate; iar formele văzute de unul (din care Dynamo decide formele dinamice
    automate, după fișier, rând și nume) nu-l fac dinamic pe celălalt."""
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list
    from torch._dynamo.testing import CompileCounterWithBackend

    torch._dynamo.reset()
    a, b = fuziune.lant_de_operatii(4), fuziune.lant_de_operatii(4)
    assert a.__code__ is not b.__code__ and a.__code__.co_name != b.__code__.co_name
    contor_a, contor_b = CompileCounterWithBackend("eager"), CompileCounterWithBackend("eager")
    compilat_a = torch.compile(a, backend=contor_a)
    for n in (64, 128, 256):  # a doua formă nouă îl face pe `a` dinamic
        compilat_a(torch.randn(n))
    torch.compile(b, backend=contor_b)(torch.randn(512))
    assert contor_b.frame_count == 1
    assert len(_debug_get_cache_entry_list(a.__code__)) == contor_a.frame_count
    assert len(_debug_get_cache_entry_list(b.__code__)) == 1
    intrari_b = [n.meta["example_value"] for n in contor_b.graphs[0].graph.nodes if n.op == "placeholder"]
    assert [tuple(t.shape) for t in intrari_b] == [(512,)], "b a moștenit formele dinamice ale lui a"
    torch._dynamo.reset()


def test_functiile_din_acelasi_def_impart_cache_ul_dynamo():
    """Contra-exemplul care justifică `lant_de_operatii`: două funcții create din același `def`
    au același obiect de cod, iar a doua găsește gata compilarea primei."""
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list
    from torch._dynamo.testing import CompileCounterWithBackend

    def fabrica():
        def f(x):
            return x + 1

        return f

    torch._dynamo.reset()
    f1, f2 = fabrica(), fabrica()
    assert f1 is not f2 and f1.__code__ is f2.__code__
    contor = CompileCounterWithBackend("eager")
    torch.compile(f1, backend=contor)(torch.randn(8))
    torch.compile(f2, backend=contor)(torch.randn(8))
    assert contor.frame_count == 1 and len(_debug_get_cache_entry_list(f1.__code__)) == 1
    torch._dynamo.reset()


# --- Codul generat: prins, împărțit pe kernel-uri, citit ---------------------------------------


def _softmax_amax(x):
    maxim = x.amax(dim=-1, keepdim=True)
    e = torch.exp(x - maxim)
    return e / e.sum(dim=-1, keepdim=True)


def test_cod_generat_nu_arunca_alte_compilari():
    """Spre deosebire de `run_and_get_code`, `cod_generat` nu apelează `torch._dynamo.reset()`:
    compilările făcute înainte rămân în cache."""
    from torch._dynamo.eval_frame import _debug_get_cache_entry_list

    torch._dynamo.reset()
    lant = fuziune.lant_de_operatii(2)
    torch.compile(lant, backend="eager", dynamic=False)(torch.randn(32))
    cod = fuziune.cod_generat(fuziune.lant_punctual, torch.randn(64), dynamic=False)
    assert len(_debug_get_cache_entry_list(lant.__code__)) == 1
    kerneluri = fuziune.kerneluri_generate(cod)
    assert [k.limbaj for k in kerneluri] == ["c++"] and kerneluri[0].nume.startswith("cpp_fused")
    # funcția originală n-a fost atinsă: s-a compilat o copie, cu alt obiect de cod
    assert _debug_get_cache_entry_list(fuziune.lant_punctual.__code__) == []
    torch._dynamo.reset()


def test_linii_cheie_cpu_forma_fixa_si_dinamica():
    x = torch.randn(1000)  # nu e multiplu de lățimea vectorului: varianta dinamică are o ramură pentru rest
    fix = fuziune.kerneluri_generate(fuziune.cod_generat(fuziune.lant_punctual, x, dynamic=False))[0]
    dinamic = fuziune.kerneluri_generate(fuziune.cod_generat(fuziune.lant_punctual, x, dynamic=True))[0]
    linii_fix, linii_dinamic = fuziune.linii_cheie(fix), fuziune.linii_cheie(dinamic)
    assert any("1000L" in l for l in linii_fix if l.startswith("for("))
    assert not any("ks0" in l for l in linii_fix)
    assert any("ks0" in l for l in linii_dinamic if l.startswith("for("))
    assert not any("static_cast" in l for l in linii_fix + linii_dinamic)
    torch._dynamo.reset()


def test_treceri_prin_rand_softmax_pe_cpu():
    """Pe CPU, Inductor nu folosește softmax-ul online: trei bucle pe rând, a treia citind
    exponențialele din tamponul local."""
    treceri = [
        fuziune.treceri_prin_rand(k, 128)
        for k in fuziune.kerneluri_generate(fuziune.cod_generat(_softmax_amax, torch.randn(8, 128), dynamic=False))
    ]
    assert len(treceri) == 1
    t = treceri[0]
    assert t.reducere == "c++" and t.treceri == 3 and not t.softmax_online
    assert t.citiri[0] == ("in_ptr0",) and t.citiri[1] == ("in_ptr0",)
    assert "in_ptr0" not in t.citiri[2]
    assert "3 bucle pe rând" in str(t) and "softmax online: nu" in str(t)
    torch._dynamo.reset()


_TRITON_RED_ONLINE = """
import triton
import triton.language as tl

@triton_heuristics.reduction(
    size_hints={'x': 8192, 'r0_': 8192},
    reduction_hint=ReductionHint.INNER,
    filename=__file__,
    triton_meta={'signature': {'in_ptr0': '*fp32', 'out_ptr2': '*fp32', 'xnumel': 'i32', 'r0_numel': 'i32', 'XBLOCK': 'constexpr', 'R0_BLOCK': 'constexpr'}, 'device': DeviceProperties(type='cuda', index=0, multi_processor_count=132, cc=90, major=9, regs_per_multiprocessor=65536, max_threads_per_multi_processor=2048, warp_size=32), 'constants': {}, 'configs': [{(0,): [['tt.divisibility', 16]], (1,): [['tt.divisibility', 16]], (2,): [['tt.divisibility', 16]], (3,): [['tt.divisibility', 16]]}]},
)
@triton.jit
def triton_red_fused__softmax_amax_div_exp_sub_sum_0(in_ptr0, out_ptr2, xnumel, r0_numel, XBLOCK : tl.constexpr, R0_BLOCK : tl.constexpr):
    xnumel = 8192
    r0_numel = 8192
    xoffset = tl.program_id(0) * XBLOCK
    xindex = xoffset + tl.arange(0, XBLOCK)[:, None]
    xmask = tl.full([XBLOCK, R0_BLOCK], True, tl.int1)
    r0_base = tl.arange(0, R0_BLOCK)[None, :]
    _tmp2_max = tl.full([XBLOCK, R0_BLOCK], float('-inf'), tl.float32)
    _tmp2_sum = tl.zeros([XBLOCK, R0_BLOCK], tl.float32)
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        tmp0 = tl.load(in_ptr0 + (r0_1 + 8192*x0), None, eviction_policy='evict_last')
        _tmp2_max_next, _tmp2_sum_next = triton_helpers.online_softmax_combine(_tmp2_max, _tmp2_sum, tmp1, False, False)
        _tmp2_max = _tmp2_max_next
        _tmp2_sum = _tmp2_sum_next
    tmp2, tmp3 = triton_helpers.online_softmax_reduce(_tmp2_max, _tmp2_sum, 1, False, False)
    for r0_offset in tl.range(0, r0_numel, R0_BLOCK):
        r0_index = r0_offset + r0_base
        tmp4 = tl.load(in_ptr0 + (r0_1 + 8192*x0), None, eviction_policy='evict_first')
        tmp7 = tmp6 / tmp3
        tl.store(out_ptr2 + (r0_1 + 8192*x0), tmp7, None)
"""

_COD_GENERAT_TRITON = (
    "from torch._inductor.runtime import triton_helpers\n\n"
    "triton_red_fused__softmax_amax_div_exp_sub_sum_0 = async_compile.triton("
    "'triton_red_fused__softmax_amax_div_exp_sub_sum_0', '''" + _TRITON_RED_ONLINE + "''', device_str='cuda')\n\n"
    "triton_per_fused__softmax_0 = async_compile.triton('triton_per_fused__softmax_0', '''\n"
    "@triton.jit\n"
    "def triton_per_fused__softmax_0(in_ptr0, out_ptr2, xnumel, r0_numel, XBLOCK : tl.constexpr):\n"
    "    tmp0 = tl.load(in_ptr0 + (r0_1 + 256*x0), xmask, other=0.0)\n"
    "    tmp4, tmp5 = triton_helpers.online_softmax_reduce(tmp3, tl.full(tmp3.shape, 1, tmp3.dtype), 1, False, False)\n"
    "''', device_str='cuda')\n\n"
    "triton_red_fused_div_exp_max_sub_sum_0 = async_compile.triton('triton_red_fused_div_exp_max_sub_sum_0', '''\n"
    "@triton.jit\n"
    "def triton_red_fused_div_exp_max_sub_sum_0(in_ptr0, out_ptr2, xnumel, rnumel, XBLOCK : tl.constexpr, RBLOCK : tl.constexpr):\n"
    "    for roffset in range(0, rnumel, RBLOCK):\n"
    "        tmp0 = tl.load(in_ptr0 + (r1 + 8192*x0), rmask, other=0.0)\n"
    "    for roffset in range(0, rnumel, RBLOCK):\n"
    "        tmp3 = tl.load(in_ptr0 + (r1 + 8192*x0), rmask, other=0.0)\n"
    "    for roffset in range(0, rnumel, RBLOCK):\n"
    "        tl.store(out_ptr2 + (r1 + 8192*x0), tmp9, rmask)\n"
    "''', device_str='cuda')\n"
)


def test_treceri_prin_rand_triton():
    kerneluri = fuziune.kerneluri_generate(_COD_GENERAT_TRITON)
    assert [k.nume for k in kerneluri] == [
        "triton_red_fused__softmax_amax_div_exp_sub_sum_0",
        "triton_per_fused__softmax_0",
        "triton_red_fused_div_exp_max_sub_sum_0",
    ]
    assert all(k.limbaj == "triton" for k in kerneluri)
    online, persistent, vechi = (fuziune.treceri_prin_rand(k, 8192) for k in kerneluri)
    assert (online.reducere, online.treceri, online.softmax_online) == ("în buclă", 2, True)
    assert "2 treceri prin rând" in str(online) and "softmax online: da" in str(online)
    assert (persistent.reducere, persistent.treceri, persistent.softmax_online) == ("persistentă", 1, True)
    assert "o singură dată, în registre" in str(persistent)
    assert (vechi.reducere, vechi.treceri, vechi.softmax_online) == ("în buclă", 3, False)


def test_linii_cheie_si_multiplii_de_16_triton():
    kernel = fuziune.kerneluri_generate(_COD_GENERAT_TRITON)[0]
    linii = fuziune.linii_cheie(kernel)
    assert linii[0].startswith("def triton_red_fused__softmax_amax_div_exp_sub_sum_0(")
    assert "xnumel = 8192" in linii and any(l.startswith("xmask = tl.full(") for l in linii)
    assert any("tl.store(" in l for l in linii) and any("tl.load(" in l for l in linii)
    assert fuziune.argumente_multiplu_de_16(kernel) == ["in_ptr0", "out_ptr2", "xnumel", "r0_numel"]
    vechi = fuziune.KernelGenerat(
        "k", "triton",
        "triton_meta={'configs': [instance_descriptor(divisible_by_16=(0, 1), equal_to_1=())]}\n"
        "@triton.jit\ndef k(in_ptr0, out_ptr0, xnumel, XBLOCK : tl.constexpr):\n    pass\n",
    )
    assert fuziune.argumente_multiplu_de_16(vechi) == ["in_ptr0", "out_ptr0"]
    fara = fuziune.KernelGenerat("k", "triton", "@triton.jit\ndef k(in_ptr0, XBLOCK : tl.constexpr):\n    pass\n")
    assert fuziune.argumente_multiplu_de_16(fara) is None
    assert fuziune.argumente_multiplu_de_16(fuziune.KernelGenerat("c", "c++", "")) is None


def test_ilustratii_arata_nu_intoarce_nimic(monkeypatch):
    import IPython.display

    afisate = []
    monkeypatch.setattr(IPython.display, "display", afisate.append)
    assert grafice.arata_ilustratie("comparatie.png") is None
    assert len(afisate) == 1
